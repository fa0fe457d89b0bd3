"""What changed between two runs: statements (matched by embedding), verdicts, audit labels.

Statements of run A and run B are paired one to one by the assignment that maximises the total
cosine of their embeddings (``scipy.optimize.linear_sum_assignment``); a pair below
:data:`adat.config.STATEMENT_MATCH_MIN_COSINE` is no pair. Paired statements with the same text
are unchanged, others *changed*; unpaired ones of B *appeared*, of A *vanished*. Verdict and
label changes are rows of ``sql/report/verdict_changes.sql`` and ``execution_label_changes.sql``.

Tests are paired by their content identity (:mod:`adat.suites.identity`): two runs of one frozen
suite share test ids; two suites generated on different nights are paired by kind, instruction,
expected side and the statement they test, and their verdicts compared with
``sql/report/paired_verdict_changes.sql``. Unpaired tests are *new* (in B) or *retired* (in A).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from adat.config import STATEMENT_MATCH_MIN_COSINE, RunConfig, cache_dir
from adat.errors import UserError
from adat.suites.identity import TestPairing, pair_runs
from adat.warehouse.queries import ReportQueries


@dataclass
class StatementDiff:
    """Statements of run B against run A."""

    appeared: list[dict[str, Any]] = field(default_factory=list)
    vanished: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[dict[str, Any], dict[str, Any], float]] = field(default_factory=list)
    unchanged: int = 0
    #: False when one run has no grounded statements (a run_suite run extracts none): then
    #: nothing was compared and appeared / vanished just list the other run's statements
    compared: bool = True


@dataclass
class RunDiff:
    """Everything ``adat diff RUN_A RUN_B`` prints."""

    run_a: str
    run_b: str
    statements: StatementDiff
    verdicts: list[dict[str, Any]]
    labels: list[dict[str, Any]]
    #: the tests of B paired with those of A by content identity; new and retired tests
    tests: TestPairing | None = None

    @property
    def judged_in_both(self) -> list[dict[str, Any]]:
        """Tests (per agent variant) that both runs judged."""
        return [r for r in self.verdicts if r["verdict_a"] and r["verdict_b"]]

    @property
    def verdict_changes(self) -> list[dict[str, Any]]:
        """Tests judged in both runs whose verdict differs (pass -> fail first)."""
        return [r for r in self.verdicts if r["verdict_a"] and r["verdict_b"] and r["verdict_a"] != r["verdict_b"]]

    @property
    def pass_to_fail(self) -> list[dict[str, Any]]:
        return [r for r in self.verdicts if r["verdict_a"] == "pass" and r["verdict_b"] == "fail"]

    @property
    def label_changes(self) -> list[dict[str, Any]]:
        """Tests (per variant) labelled in both runs whose execution label differs."""
        return [r for r in self.labels if r["label_a"] and r["label_b"] and r["label_a"] != r["label_b"]]


def match_statements(a: list[dict[str, Any]], b: list[dict[str, Any]], vectors_a: np.ndarray,
                     vectors_b: np.ndarray, min_cosine: float = STATEMENT_MATCH_MIN_COSINE) -> StatementDiff:
    """Pair statements of ``a`` and ``b`` (rows with a ``text``) given unit-length embeddings."""
    from scipy.optimize import linear_sum_assignment

    diff = StatementDiff()
    paired_a: set[int] = set()
    paired_b: set[int] = set()
    if a and b:
        cosine = vectors_a @ vectors_b.T
        rows, cols = linear_sum_assignment(cosine, maximize=True)
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
            if cosine[i, j] < min_cosine:
                continue
            paired_a.add(i)
            paired_b.add(j)
            if a[i]["text"] == b[j]["text"]:
                diff.unchanged += 1
            else:
                diff.changed.append((a[i], b[j], float(cosine[i, j])))
    diff.vanished = [s for i, s in enumerate(a) if i not in paired_a]
    diff.appeared = [s for j, s in enumerate(b) if j not in paired_b]
    return diff


def statement_diff(queries: ReportQueries, run_a: str, run_b: str) -> StatementDiff:
    """The grounded statements of ``run_b`` against ``run_a`` (rows of sql/report/run_statements.sql)."""
    from adat.embeddings import Embedder

    a = queries.rows("run_statements", run_id=run_a)
    b = queries.rows("run_statements", run_id=run_b)
    if not a or not b:  # nothing to embed: every statement of the other run appeared / vanished
        return StatementDiff(appeared=b, vanished=a, compared=False)
    embedder = Embedder(cache_dir(RunConfig(data_dir=str(queries.data_root))))
    vectors = embedder.embed([s["text"] for s in a] + [s["text"] for s in b])
    return match_statements(a, b, vectors[: len(a)], vectors[len(a):])


def run_diff(data_root: Path, run_a: str, run_b: str, queries: ReportQueries | None = None) -> RunDiff:
    """Diff ``run_b`` against ``run_a`` in the warehouse at ``data_root``."""
    queries = queries or ReportQueries(data_root)
    for label, run in (("RUN_A", run_a), ("RUN_B", run_b)):
        if not queries.run_exists(run):
            raise UserError(f"run {run!r} has no tests or executions in {data_root}", field=label,
                            fix="pass a run id from `adat sql stg_runs`, or --data-dir of its warehouse")
    tests = pair_runs(queries, run_a, run_b)
    return RunDiff(run_a=run_a, run_b=run_b,
                   statements=statement_diff(queries, run_a, run_b),
                   verdicts=paired_verdicts(queries, tests),
                   labels=queries.rows("execution_label_changes", run_a=run_a, run_b=run_b),
                   tests=tests)


def paired_verdicts(queries: ReportQueries, tests: TestPairing) -> list[dict[str, Any]]:
    """Verdicts of A and B per test and variant: joined on the test id when every pair is one id
    (``verdict_changes``), else over the pairs (``paired_verdict_changes``)."""
    if tests.same_ids:
        return queries.rows("verdict_changes", run_a=tests.run_a, run_b=tests.run_b)
    tests_a, tests_b = tests.columns()
    return queries.rows("paired_verdict_changes", run_a=tests.run_a, run_b=tests.run_b, tests_a=tests_a, tests_b=tests_b)


def diff_markdown(d: RunDiff, limit: int = 20) -> str:
    """The diff as markdown (the "What changed" part of the nightly flow's ``adat-nightly``
    artifact): counts, then at most ``limit`` rows per list, pass -> fail first."""
    s = d.statements
    lines = [f"# adat diff `{d.run_a}` → `{d.run_b}`", "",
             "| change | count |", "|---|---|",
             f"| verdicts pass → fail | {len(d.pass_to_fail)} |",
             f"| other verdict changes | {len(d.verdict_changes) - len(d.pass_to_fail)} |",
             f"| tests judged in both | {len(d.judged_in_both)} |"]
    if d.tests is not None and not d.tests.same_ids:
        lines += [f"| tests paired / new / retired | {len(d.tests.paired)} / {len(d.tests.new)} / "
                  f"{len(d.tests.retired)} |"]
    if s.compared:
        lines += [f"| statements appeared / vanished / changed / unchanged | {len(s.appeared)} / "
                  f"{len(s.vanished)} / {len(s.changed)} / {s.unchanged} |"]
    lines += [f"| execution label changes | {len(d.label_changes)} |", ""]
    if d.verdict_changes:
        lines += ["## Verdict changes", "", "| change | test | kind | variant |", "|---|---|---|---|"]
        lines += [f"| {r['change']} | `{r['test_id']}` | {r['kind']} | {r['agent_variant']} |"
                  for r in d.verdict_changes[:limit]]
        lines.append("")
    if d.tests is not None:
        for title, tests in (("New tests", d.tests.new), ("Retired tests", d.tests.retired)):
            if tests:
                lines += [f"## {title}", "", *(f"* `{t['test_id']}` ({t['kind']}) {t['goal'] or ''}"
                                                for t in tests[:limit]), ""]
    for title, rows in (("Statements that appeared", s.appeared), ("Statements that vanished", s.vanished)):
        if s.compared and rows:
            lines += [f"## {title}", "", *(f"* {r['text']}" for r in rows[:limit]), ""]
    lines.append(f"Full diff: `adat diff {d.run_a} {d.run_b}`")
    return "\n".join(lines)
