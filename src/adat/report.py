"""Headline figures of a run, computed from the warehouse (for the CLI and the Prefect UI)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, cast

from rich.console import Console
from rich.table import Table

from adat.config import OFFLINE_MODEL, RunConfig
from adat.records import Attempt, Execution, LLMCall, Run, Statement, TestCase, Verdict
from adat.warehouse.catalog import catalog_path
from adat.warehouse.parquet import read_records, table_dir

#: stages of `adat evaluate` / `adat regress` (their rows sit in the evaluated run's partition)
EVALUATION_PHASES = frozenset({"audit", "groupings", "execution-labels", "regression"})


def run_summary(root: Path, run_id: str) -> dict[str, Any]:
    """Counts a user wants after a run: statements, tests, attempts, verdicts, instructions, calls."""
    statements = cast(list[Statement], read_records(root, "statements", run_id=run_id))
    tests = cast(list[TestCase], read_records(root, "tests", run_id=run_id))
    attempts = cast(list[Attempt], read_records(root, "attempts", run_id=run_id))
    verdicts = cast(list[Verdict], read_records(root, "verdicts", run_id=run_id))
    # Evaluation writes fault variants' executions and its own calls into the suite run's
    # partition: they are not the run's own, so a re-run after `--evaluate` reports what the run did.
    calls = [c for c in cast(list[LLMCall], read_records(root, "llm_calls", run_id=run_id))
             if c.phase not in EVALUATION_PHASES]
    original = {e.execution_id for e in cast(list[Execution], read_records(root, "executions", run_id=run_id))
                if e.agent_variant == "original"}
    kind_of = {t.test_id: t.kind for t in tests}
    verdict_by_kind: dict[str, Counter[str]] = {}
    for v in verdicts:
        if v.execution_id not in original:
            continue
        verdict_by_kind.setdefault(kind_of.get(v.test_id, "?"), Counter())[v.verdict] += 1
    used = Counter(a.instruction_id for a in attempts)
    written = Counter(a.instruction_id for a in attempts if a.test_id)
    models = Counter(f"{c.provider}/{c.model}" for c in calls)
    runs = cast(list[Run], read_records(root, "runs", run_id=run_id))
    return {
        "run_id": run_id,
        "status": runs[-1].status if runs else "",
        "stopped_in": runs[-1].stopped_in if runs else "",
        "statements": len(statements),
        "grounded_statements": sum(1 for s in statements if s.grounded),
        "tests": dict(Counter(t.kind for t in tests)),
        "attempts": len(attempts),
        "not_applicable": sum(1 for a in attempts if a.outcome == "not_applicable"),
        "attempt_errors": sum(1 for a in attempts if a.outcome == "error"),
        "verdicts": {k: dict(v) for k, v in verdict_by_kind.items()},
        "top_instructions": [(k, n, written.get(k, 0)) for k, n in used.most_common(5)],
        "llm_calls": dict(models),
        "offline": any(m == OFFLINE_MODEL for m in models),
        "cache_hits": sum(1 for c in calls if c.cache_hit),
        "tables": str(root / "runs"),
        "catalog": str(catalog_path(root)),
    }


def _na_share(s: dict[str, Any]) -> float:
    """Not-applicable share of the attempts that were not errors (an error says nothing)."""
    judged = s["attempts"] - s.get("attempt_errors", 0)
    return s["not_applicable"] / judged if judged else 0.0


def summary_markdown(s: dict[str, Any]) -> str:
    """The summary as markdown (a Prefect artifact)."""
    na_share = _na_share(s)
    lines = [f"# adat run `{s['run_id']}`", ""]
    if s["offline"]:
        lines += ["> Produced by **offline/heuristic**, a deterministic rule-based stand-in for the "
                  "tester roles — not a language model's results.", ""]
    if s.get("status") == "budget_exhausted":
        lines += [f"> **Budget exhausted** in {s['stopped_in']}: the run stopped there; what it wrote is kept.", ""]
    lines += ["| measure | value |", "|---|---|",
              f"| statements (grounded) | {s['statements']} ({s['grounded_statements']}) |",
              f"| plain tests | {s['tests'].get('plain', 0)} |",
              f"| transformed tests | {s['tests'].get('transformed', 0)} |",
              f"| attempts (not applicable) | {s['attempts']} ({na_share:.0%}) |"]
    for kind, counts in sorted(s["verdicts"].items()):
        text = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        lines.append(f"| verdicts, {kind} tests | {text} |")
    lines.append(f"| LLM calls | {', '.join(f'{m}: {n}' for m, n in s['llm_calls'].items()) or 'none'} |")
    if s["top_instructions"]:
        lines += ["", "Most used instructions: " + ", ".join(
            f"`{k}` ({n} attempts, {w} tests)" for k, n, w in s["top_instructions"])]
    lines += ["", f"Parquet tables: `{s['tables']}`  DuckDB catalog: `{s['catalog']}`"]
    return "\n".join(lines)


def print_run_summary(console: Console, cfg: RunConfig, run_id: str) -> dict[str, Any]:
    """Print the summary of ``run_id`` as a table."""
    s = run_summary(cfg.data_path(), run_id)
    table = Table(title=f"adat run {run_id}", show_header=False)
    na_share = _na_share(s)
    rows = [("statements (grounded)", f"{s['statements']} ({s['grounded_statements']})"),
            ("plain tests", str(s["tests"].get("plain", 0))),
            ("transformed tests", str(s["tests"].get("transformed", 0))),
            ("attempts (not applicable)", f"{s['attempts']} ({na_share:.0%})")]
    rows += [(f"verdicts, {kind}", ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
             for kind, c in sorted(s["verdicts"].items())]
    rows += [("most used instructions",
              "\n".join(f"{k}: {n} attempts, {w} tests" for k, n, w in s["top_instructions"]) or "-"),
             ("LLM calls", "\n".join(f"{m}: {n}" for m, n in s["llm_calls"].items()) or "-"),
             ("Parquet tables", s["tables"]), ("DuckDB catalog", s["catalog"])]
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)
    if s.get("status") == "budget_exhausted":
        console.print(f"[yellow]Budget exhausted in {s['stopped_in']}: the run stopped there; "
                      "what it wrote is kept.[/yellow]")
    if s["offline"]:
        console.print("[yellow]These results come from offline/heuristic, a deterministic rule-based "
                      "stand-in for the tester roles, not from a language model.[/yellow]")
    console.print(f"Query it: adat sql <name> --run {run_id}   |   duckdb -readonly {s['catalog']}")
    return s


def has_table(root: Path, table: str) -> bool:
    return table_dir(root, table).is_dir()
