"""Headline figures of a run, computed from the warehouse (for the CLI and the Prefect UI)."""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from adat.config import OFFLINE_MODEL, RunConfig, adat_home
from adat.warehouse.layout import RUNS_DIR, catalog_path

# adat.warehouse.catalog and .queries load DuckDB and pyarrow: imported where a query runs, so
# printing a stored summary (an unchanged re-run) loads neither

#: (root, run id, sql dir, catalog mtime) -> summary: a flow command computes it for the flow's
#: artifact and again for the terminal; the catalog is rebuilt whenever a table changed, so an
#: unchanged catalog means unchanged figures
_SUMMARIES: dict[tuple[str, str, str, int], dict[str, Any]] = {}


def run_summary(root: Path, run_id: str, sql_dir: Path | None = None) -> dict[str, Any]:
    """Counts a user wants after a run, every one from ``sql/metrics`` over the staging views
    (distinct ids, never raw rows): statements, tests, attempts, verdicts (with ``unjudged``) per
    kind and agent variant, target errors, failed LLM calls by role, instructions, calls.

    Computed once per catalog state: the flow's artifact and the CLI's table share it."""
    from adat.warehouse.catalog import refresh_catalog

    sql = Path(sql_dir) if sql_dir else adat_home() / "sql"
    db = refresh_catalog(root, sql)
    key = (str(Path(root).resolve()), run_id, str(sql.resolve()), db.stat().st_mtime_ns)
    if key not in _SUMMARIES:
        _SUMMARIES[key] = _compute_summary(root, run_id, sql)
    return copy.deepcopy(_SUMMARIES[key])


def _compute_summary(root: Path, run_id: str, sql_dir: Path) -> dict[str, Any]:
    from adat.warehouse.queries import ReportQueries

    with ReportQueries(root, sql_dir).session() as queries:  # one connection for the four queries
        rows = {name: queries.rows(name, run_id=run_id)
                for name in ("run_summary", "verdict_counts", "run_llm_calls", "instruction_stats")}
    head = next(iter(rows["run_summary"]), {})
    verdicts: dict[str, dict[str, int]] = {}
    own = head.get("agent_variant", "original")
    for row in rows["verdict_counts"]:
        if row["agent_variant"] != own:  # fault variants an evaluation ran inside this run
            continue
        label = row["kind"] if row["agent_variant"] == "original" else f"{row['kind']} on {row['agent_variant']}"
        verdicts[label] = {k: int(row[k]) for k in ("pass", "fail", "inconclusive", "unjudged") if row[k]}
    usage = rows["run_llm_calls"]
    models: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for row in usage:
        models[row["provider_model"]] += int(row["calls"])
        if row["errors"]:
            failed[row["role"]] += int(row["errors"])
    top = sorted(rows["instruction_stats"], key=lambda r: (-r["attempts"], r["instruction_id"]))[:5]
    counts = ("statements", "grounded_statements", "attempts", "not_applicable", "attempt_errors", "target_errors",
              "cache_hits")
    return {
        "run_id": run_id,
        "agent_variant": own,
        "status": head.get("status", ""),
        "stopped_in": head.get("stopped_in", "") or "",
        "error": head.get("error", "") or "",
        **{name: int(head.get(name, 0)) for name in counts},
        "tests": {"plain": int(head.get("plain_tests", 0)), "transformed": int(head.get("transformed_tests", 0)),
                  "all": int(head.get("tests", 0))},
        "verdicts": verdicts,
        "failed_llm_calls": dict(failed),
        "top_instructions": [(r["instruction_id"], int(r["attempts"]), int(r["tests_written"])) for r in top],
        "llm_calls": dict(models),
        "offline": any(m == OFFLINE_MODEL for m in models),
        "tables": str(root / RUNS_DIR),
        "catalog": str(catalog_path(root)),
    }


#: what every output of a run the offline stand-in played says (the run summary, the evaluation's)
OFFLINE_NOTE = ("Produced by **offline/heuristic**, a deterministic rule-based stand-in for the tester roles "
                "— not a language model's results.")


def is_offline(root: Path, run_id: str) -> bool:
    """Whether the run's own LLM calls (the evaluation's left out) went to the offline stand-in."""
    from adat.warehouse.queries import ReportQueries

    return any(r["provider_model"] == OFFLINE_MODEL for r in ReportQueries(root).rows("run_llm_calls", run_id=run_id))


def summary_rows(s: dict[str, Any], sep: str = ", ") -> list[tuple[str, str]]:
    """The summary's measures as (label, value), for both renderers below (``sep`` joins a list)."""
    judged = s["attempts"] - s.get("attempt_errors", 0)  # of the attempts, an error says nothing
    na_share = s["not_applicable"] / judged if judged else 0.0
    failed = ", ".join(f"{role} {n}" for role, n in sorted(s["failed_llm_calls"].items())) or "none"
    rows = [("agent variant", s["agent_variant"]),
            ("statements (grounded)", f"{s['statements']} ({s['grounded_statements']})"),
            ("plain tests", str(s["tests"].get("plain", 0))),
            ("transformed tests", str(s["tests"].get("transformed", 0))),
            ("attempts (not applicable)", f"{s['attempts']} ({na_share:.0%})")]
    rows += [(f"verdicts, {kind} tests", ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
             for kind, c in sorted(s["verdicts"].items())]
    rows += [("errors", f"target {s['target_errors']}; failed LLM calls: {failed}"),
             ("LLM calls", sep.join(f"{m}: {n}" for m, n in s["llm_calls"].items()) or "none")]
    return rows


def status_notes(s: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(headline, the rest, terminal colour) of each thing the run's status says."""
    notes = []
    if s.get("status") == "budget_exhausted":
        notes.append(("Budget exhausted", f" in {s['stopped_in']}: the run stopped there; what it wrote is kept.",
                      "yellow"))
    if s.get("status") == "failed":
        notes.append(("Failed", f": {s['error']}. What the finished stages wrote is kept.", "red"))
    if s.get("status") == "abandoned":
        notes.append(("Abandoned", f": {s['error']}. What the finished stages wrote is kept; "
                      "re-run it with the same run_id to resume.", "red"))
    return notes


def summary_markdown(s: dict[str, Any]) -> str:
    """The summary as markdown (a Prefect artifact)."""
    lines = [f"# adat run `{s['run_id']}`", ""]
    if s["offline"]:
        lines += [f"> {OFFLINE_NOTE}", ""]
    for head, rest, _ in status_notes(s):
        lines += [f"> **{head}**{rest}", ""]
    lines += ["| measure | value |", "|---|---|", *(f"| {label} | {value} |" for label, value in summary_rows(s))]
    if s["top_instructions"]:
        lines += ["", "Most used instructions: " + ", ".join(
            f"`{k}` ({n} attempts, {w} tests)" for k, n, w in s["top_instructions"])]
    lines += ["", f"Parquet tables: `{s['tables']}`  DuckDB catalog: `{s['catalog']}`"]
    return "\n".join(lines)


def print_run_summary(console: Console, cfg: RunConfig, run_id: str,
                      summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """Print the summary of ``run_id`` as a table (``summary``: one :func:`run_summary` gave before)."""
    s = summary if summary is not None else run_summary(cfg.data_path(), run_id)
    table = Table(title=f"adat run {run_id}", show_header=False)
    rows = summary_rows(s, sep="\n")
    rows.insert(len(rows) - 1, ("most used instructions",
                                "\n".join(f"{k}: {n} attempts, {w} tests" for k, n, w in s["top_instructions"]) or "-"))
    rows += [("Parquet tables", s["tables"]), ("DuckDB catalog", s["catalog"])]
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)
    for head, rest, colour in status_notes(s):
        console.print(f"[{colour}]{head}{escape(rest)}[/{colour}]")
    if s["offline"]:
        print_offline_note(console)
    console.print(f"Query it: adat sql <name> --run {run_id}   |   duckdb -readonly {s['catalog']}")
    return s


def print_offline_note(console: Console) -> None:
    """The terminal form of :data:`OFFLINE_NOTE`."""
    console.print("[yellow]These results come from offline/heuristic, a deterministic rule-based "
                  "stand-in for the tester roles, not from a language model.[/yellow]")
