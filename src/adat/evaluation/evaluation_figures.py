"""Print an evaluation's figures — every number comes from a query in ``sql/metrics``.

V/C, V_E/C, U, P, the execution labels, FAR and accuracy, the seeded-fault headline (detected /
seeded, activated / seeded, the unreached faults), the per-fault detection table and the mutation
score are each one metric file, run against the DuckDB catalog for the suite run; this
module only selects rows and formats them. A missing metric file is reported, never replaced by
a number computed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from adat.config import RunConfig, adat_home

#: (metric file, heading) in print order
EVALUATION_METRICS: tuple[tuple[str, str], ...] = (
    ("validity_rate", "V/C — valid boundary tests over counted tests"),
    ("explicit_validity_rate", "V_E/C — explicitly valid boundary tests over counted tests"),
    ("distinct_boundaries", "U — distinct explicit boundaries (median over groupings)"),
    ("distinct_sides", "P — distinct sides of the explicit boundaries (median over groupings)"),
    ("both_sides_share", "(P − U) / U — share of the covered boundaries covered on both sides"),
    ("execution_label_counts", "Execution labels"),
    ("inconclusive_share", "Inconclusive share of the original agent's executions"),
    ("false_alarm_rate", "FAR = FP / (FP + TN)"),
    ("accuracy", "Accuracy = (TP + TN) / labelled"),
    ("seeded_fault_detection", "Seeded faults: detected / seeded (the headline), activated / seeded, unreached"),
    ("fault_detection", "Seeded faults: detection per fault"),
    ("mutation_score", "Mutation score = killed / activated (TDAD's MS; unreached variants not scored)"),
)


def evaluation_run_id(result: Any) -> str:
    """The suite run an evaluation wrote to, from the flow's result (a StepResult, a dict or the id)."""
    if isinstance(result, str):
        return result
    if isinstance(result, Mapping):
        return str(result["run_id"])
    return str(result.run_id)


def evaluation_faults_of(result: Any) -> list[str] | None:
    """The faults an evaluation or regression flow ran (its result's ``data['faults']``); None if unknown."""
    data = result.get("data") if isinstance(result, Mapping) else getattr(result, "data", None)
    faults = data.get("faults") if isinstance(data, Mapping) else None
    return [str(f) for f in faults] if isinstance(faults, list) else None


def evaluation_metrics(cfg: RunConfig, run_id: str, sql_dir: Path | None = None,
                       faults: list[str] | None = None) -> dict[str, list[dict[str, Any]] | None]:
    """Metric name -> its rows for ``run_id`` (None when the metric file does not exist).

    ``faults`` restricts the per-fault figures (detection table, mutation score) to those faults,
    and the per-variant rows (labels, FAR, accuracy) to the original agent and those faults.
    """
    from adat.warehouse.queries import ReportQueries
    from adat.warehouse.sql_runner import declared_params

    sql_dir = sql_dir or adat_home() / "sql"
    out: dict[str, list[dict[str, Any]] | None] = {}
    with ReportQueries(cfg.data_path(), sql_dir).session() as queries:
        for name, _heading in EVALUATION_METRICS:
            path = sql_dir / "metrics" / f"{name}.sql"
            if not path.is_file():
                out[name] = None
                continue
            chosen = {"faults": ",".join(faults)} if faults is not None and "faults" in declared_params(path) else {}
            rows = queries.rows(name, run_id=run_id, **chosen)
            out[name] = [r for r in rows if faults is None or r.get("agent_variant", "original") in {"original", *faults}]
    return out


#: columns whose NULL means the auditor never saw the run's tests or executions (sql/metrics say so)
NOT_AUDITED_COLUMNS = frozenset({"valid", "validity_rate", "explicit_valid", "explicit_validity_rate",
                                 "valid_tests", "detecting_tests"})


def _cell(value: Any, column: str = "") -> str:
    if value is None:
        return "not audited" if column in NOT_AUDITED_COLUMNS else "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "—"
    return str(value)


def detection_headline(row: Mapping[str, Any]) -> str:
    """One line of a ``seeded_fault_detection`` row: detected / seeded first, then how much of the
    seeded policy the suite reached and the faults it never reached, by name."""
    unreached = ", ".join(row["unreached"]) or "none"
    return (f"Seeded faults detected: {row['detected']} / {row['seeded']} ({row['detection_rate']:.3f}); "
            f"activated (reached): {row['activated']} / {row['seeded']} ({row['activation_rate']:.3f}); "
            f"unreached: {unreached}")


def print_evaluation(console: Console, cfg: RunConfig, result: Any) -> dict[str, list[dict[str, Any]] | None]:
    """Print every evaluation metric of the suite run ``result`` names; returns the rows printed."""
    run_id = evaluation_run_id(result)
    metrics = evaluation_metrics(cfg, run_id, faults=evaluation_faults_of(result))
    auditor = "reference auditor (side log, no LLM)" if cfg.target.type == "reference" else cfg.models.auditor
    console.print(f"[bold]adat evaluation of run {run_id}[/bold] — auditor: {auditor}")
    from adat.run_figures import is_offline, print_offline_note

    if is_offline(cfg.data_path(), run_id):
        print_offline_note(console)
    for name, heading in EVALUATION_METRICS:
        rows = metrics[name]
        if rows is None:
            console.print(f"[red]{heading}: sql/metrics/{name}.sql is missing[/red]")
            continue
        table = Table(title=f"{heading}  [dim](adat sql {name} --run {run_id})[/dim]", title_justify="left")
        columns = [c for c in (rows[0].keys() if rows else []) if c != "run_id"]
        for column in columns:
            table.add_column(column)
        for row in rows:
            table.add_row(*(_cell(row[c], c) for c in columns))
        if not rows:
            console.print(f"{heading}: no rows for this run")
            continue
        console.print(table)
    for row in metrics.get("seeded_fault_detection") or []:
        console.print(detection_headline(row), style="bold", markup=False, highlight=False)
    console.print(f"Per-row detail: adat sql stg_execution_labels --run {run_id}   |   "
                  f"adat sql stg_audit_labels --run {run_id}")
    return metrics
