"""A test's content identity across runs: which test of one suite is "the same test" in another.

Test ids embed the run that wrote them (``te-<run>-…``), so a suite generated again on the next
night has only new ids. Identity is therefore computed when two runs are compared, from what a
test tests (docs/suites.md, "Test identity"):

1. a test executed by both runs under the same id (a frozen suite run again by ``run-suite``) is
   paired with itself;
2. the others are grouped by **kind, instruction and expected side** — a plain test on the
   "denied" side and a transformed test with ``wording-paraphrase`` are never the same test;
3. within a group, tests are paired one to one by the assignment that maximises the total
   cosine of the embeddings of **the statement they check**, as their goal states it
   ("Check that when …, the agent …"): a plain test's goal is its statement; a transformed test
   that moved a request to another side checks the statement it moved to, whose reply the
   generator took from the discovery traces, not the one it was made from (two nights made the
   same test from different source statements),
   ``scipy.optimize.linear_sum_assignment`` as in :func:`adat.reporting.run_diff.match_statements`;
   a pair below :data:`adat.config.STATEMENT_MATCH_MIN_COSINE` is no pair.

Tests of the later run left unpaired are **new**, of the earlier run **retired**. Nothing is
stored: the pairing is a function of the two runs' rows (``sql/report/test_identity_inputs.sql``),
so it never goes stale when a run is re-run, imported or deleted; verdicts of paired tests are
compared in SQL (``sql/report/paired_verdict_changes.sql``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from adat.config import STATEMENT_MATCH_MIN_COSINE

#: what must be equal for two tests to be the same test (the statement is matched by embedding)
IDENTITY_KEY = ("kind", "instruction_id", "expected_side")

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass
class TestPairing:
    """The tests of run B against those of run A."""

    __test__ = False  # not a pytest class

    run_a: str
    run_b: str
    #: (test of A, test of B, cosine of their statements; 1.0 for the same test id)
    paired: list[tuple[dict[str, Any], dict[str, Any], float]] = field(default_factory=list)
    new: list[dict[str, Any]] = field(default_factory=list)
    retired: list[dict[str, Any]] = field(default_factory=list)

    @property
    def tests_b(self) -> int:
        return len(self.paired) + len(self.new)

    @property
    def paired_share(self) -> float | None:
        """Share of run B's tests that have a counterpart in run A (None when B has none)."""
        return len(self.paired) / self.tests_b if self.tests_b else None

    @property
    def same_ids(self) -> bool:
        """Whether every pair is one test id (B ran A's suite, or both ran the same suite)."""
        return all(a["test_id"] == b["test_id"] for a, b, _ in self.paired)

    def columns(self) -> tuple[list[str], list[str]]:
        """The pairs as two parallel lists of test ids (A's, B's), for SQL parameters."""
        return [a["test_id"] for a, _, _ in self.paired], [b["test_id"] for _, b, _ in self.paired]


def identity_key(test: dict[str, Any]) -> tuple[str, ...]:
    """The part of a test's identity that must match exactly."""
    return tuple(str(test.get(k) or "") for k in IDENTITY_KEY)


def pair_tests(run_a: str, run_b: str, a: list[dict[str, Any]], b: list[dict[str, Any]], embed: Embed,
               min_cosine: float = STATEMENT_MATCH_MIN_COSINE) -> TestPairing:
    """Pair rows of ``a`` and ``b`` (rows of ``test_identity_inputs``: test_id, kind,
    instruction_id, expected_side, text); ``embed`` gives unit-length vectors of texts."""
    from scipy.optimize import linear_sum_assignment

    out = TestPairing(run_a, run_b)
    ids_b = {t["test_id"] for t in b}
    same = [t for t in a if t["test_id"] in ids_b]
    out.paired = [(t, t, 1.0) for t in same]
    taken = {t["test_id"] for t in same}
    rest_a = [t for t in a if t["test_id"] not in taken]
    rest_b = [t for t in b if t["test_id"] not in taken]
    groups_a: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    groups_b: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for t in rest_a:
        groups_a[identity_key(t)].append(t)
    for t in rest_b:
        groups_b[identity_key(t)].append(t)
    shared = [k for k in groups_b if k in groups_a]
    texts = sorted({t["text"] for k in shared for t in groups_a[k] + groups_b[k]})
    vectors = dict(zip(texts, embed(texts), strict=True)) if texts else {}
    paired_ids: set[str] = set()
    for key in shared:
        ga, gb = groups_a[key], groups_b[key]
        va = np.stack([vectors[t["text"]] for t in ga])
        vb = np.stack([vectors[t["text"]] for t in gb])
        cosine = va @ vb.T
        for i, j in zip(*linear_sum_assignment(cosine, maximize=True), strict=True):
            if cosine[i, j] >= min_cosine:
                out.paired.append((ga[i], gb[j], float(cosine[i, j])))
                paired_ids.update((ga[i]["test_id"], gb[j]["test_id"]))
    out.new = [t for t in rest_b if t["test_id"] not in paired_ids]
    out.retired = [t for t in rest_a if t["test_id"] not in paired_ids]
    return out


def pair_runs(queries: Any, run_a: str, run_b: str) -> TestPairing:
    """The tests of ``run_b`` paired with those of ``run_a`` in the warehouse ``queries`` reads
    (a :class:`adat.warehouse.queries.ReportQueries`)."""
    from adat.config import RunConfig, cache_dir
    from adat.embeddings import Embedder

    a = queries.rows("test_identity_inputs", run_id=run_a)
    b = queries.rows("test_identity_inputs", run_id=run_b)
    embedder = Embedder(cache_dir(RunConfig(data_dir=str(queries.data_root))))
    return pair_tests(run_a, run_b, a, b, embedder.embed)

