"""What the Prefect UI shows of a run: markdown and tables whose rows all have the same columns.

The content is built here, from :func:`adat.run_figures.run_summary` and ``sql/metrics`` (through
:func:`adat.evaluation.evaluation_figures.evaluation_metrics`); ``flows/_artifacts.py`` publishes it. The UI
draws a table artifact's columns from its first row, so every table here goes through
:func:`uniform_rows`. adat itself never imports Prefect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adat.run_figures import OFFLINE_NOTE, summary_markdown

VERDICTS = ("pass", "fail", "inconclusive", "unjudged")
#: (measure, metric file, column, filter column, filter value) of the evaluation's headline figures
EVALUATION_HEADLINE: tuple[tuple[str, str, str, str | None, str | None], ...] = (
    ("V/C", "validity_rate", "validity_rate", "kind", "all"),
    ("V_E/C", "explicit_validity_rate", "explicit_validity_rate", "kind", "all"),
    ("FAR", "false_alarm_rate", "false_alarm_rate", "agent_variant", "original"),
    ("accuracy", "accuracy", "accuracy", "agent_variant", "original"),
    ("detected / seeded", "seeded_fault_detection", "detection_rate", None, None),
    ("mutation score", "mutation_score", "mutation_score", "kind", "fault"),
)
Metrics = Mapping[str, list[dict[str, Any]] | None]


def uniform_rows(rows: list[dict[str, Any]], fill: Any = None) -> list[dict[str, Any]]:
    """``rows`` with every key any row has, in first-seen order; a missing cell is ``fill``."""
    keys: dict[str, None] = {}
    for row in rows:
        keys.update(dict.fromkeys(row))
    return [{k: row.get(k, fill) for k in keys} for row in rows]


def verdict_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per test kind: kind, pass, fail, inconclusive, unjudged (0 when none)."""
    return [{"kind": kind, **{v: int(counts.get(v, 0)) for v in VERDICTS}}
            for kind, counts in sorted(summary["verdicts"].items())]


def _metric_row(metrics: Metrics, name: str, column: str | None, value: str | None) -> dict[str, Any] | None:
    rows = metrics.get(name) or []
    return next((r for r in rows if column is None or r.get(column) == value), None)


NOT_AUDITED = "not audited"


def evaluation_rows(metrics: Metrics, run_id: str) -> list[dict[str, Any]]:
    """The evaluation's headline metrics (V/C, V_E/C, FAR, accuracy, seeded faults detected / seeded
    with activated / seeded and the unreached faults, mutation score = killed / activated), one row each:
    metric, value (None when the run has no such row), detail, the query that gives it.

    A run none of whose tests was audited (validity_rate's ``audited`` is 0: e.g. a ``run-suite``
    run) gets value None and the detail "not audited" on every row, never a rate of 0."""
    validity = _metric_row(metrics, "validity_rate", "kind", "all")
    unaudited = validity is not None and validity.get("audited") == 0
    details = {
        "validity_rate": lambda r: f"{r['valid']} valid of {r['counted']} counted",
        "explicit_validity_rate": lambda r: f"{r['explicit_valid']} explicitly valid of {r['counted']} counted",
        "false_alarm_rate": lambda r: f"FP {r['fp']}, TN {r['tn']} (original agent)",
        "accuracy": lambda r: f"TP {r['tp']} + TN {r['tn']} of {r['labelled']} labelled (original agent)",
        "seeded_fault_detection": lambda r: (f"{r['detected']} detected / {r['seeded']} seeded; activated (reached) "
                                             f"{r['activated']} / {r['seeded']}; unreached: "
                                             + (", ".join(r["unreached"]) or "none")),
        "mutation_score": lambda r: (f"{r['killed']} killed / {r['activated']} activated of {r['variants']} faults: "
                                     + (", ".join(r["killed_variants"]) or "none")
                                     + (f"; not activated: {', '.join(r['not_activated'])}" if r["not_activated"]
                                        else "")),
    }
    out = []
    for measure, name, column, key, wanted in EVALUATION_HEADLINE:
        row = None if unaudited else _metric_row(metrics, name, key, wanted)
        detail = (f"{NOT_AUDITED}: {validity['counted']} tests, none audited (adat evaluate --run {run_id})"
                  if unaudited and validity else details[name](row) if row else "no rows for this run")
        out.append({"metric": measure, "value": _round(row[column]) if row else None, "detail": detail,
                    "query": f"adat sql {name} --run {run_id}"})
    return uniform_rows(out)


def fault_rows(metrics: Metrics) -> list[dict[str, Any]]:
    """Per seeded fault: fault, the run its original-agent verdicts come from, activated (reached by the
    suite; None when not measured), tests run, pass -> fail tests, detecting tests (None when the
    fault's executions were not audited), detected, evidence."""
    return uniform_rows([{"fault": r["fault"], "base_run": r.get("base_run"), "activated": r.get("activated"),
                          "tests_run": int(r["tests_run"]),
                          "pass_to_fail": r.get("pass_to_fail"),
                          "detecting_tests": None if r["detecting_tests"] is None else int(r["detecting_tests"]),
                          "detected": bool(r["detected"]), "evidence": r.get("evidence")}
                         for r in metrics.get("fault_detection") or []])


def evaluation_markdown(metrics: Metrics, run_id: str, offline: bool = False) -> str:
    """The evaluate flow's metrics as markdown (``offline``: the suite came from offline/heuristic)."""
    lines = [f"# adat evaluation of run `{run_id}`", ""]
    lines += [f"> {OFFLINE_NOTE}", ""] if offline else []
    lines += ["| metric | value | detail |", "|---|---|---|"]
    lines += [f"| {r['metric']} | {NOT_AUDITED if str(r['detail']).startswith(NOT_AUDITED) else cell(r['value'])} "
              f"| {r['detail']} |" for r in evaluation_rows(metrics, run_id)]
    faults = fault_rows(metrics)
    if faults:
        lines += ["", "| fault | reached | tests run | pass → fail | detecting tests | detected |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| `{r['fault']}` | {_reached(r['activated'])} | {r['tests_run']} | {cell(r['pass_to_fail'])} | "
                  f"{NOT_AUDITED if r['detecting_tests'] is None else r['detecting_tests']} | "
                  f"{'yes' if r['detected'] else 'no'}{'' if r['detecting_tests'] is not None else ' (pass → fail)'} |"
                  for r in faults]
    lines += ["", f"Every figure: `adat evaluate`'s queries, e.g. `adat sql mutation_score --run {run_id}`."]
    return "\n".join(lines)


def headline_figures(summary: Mapping[str, Any], metrics: Metrics | None = None) -> dict[str, float | int | None]:
    """The night's headline figures, the same measures every night (None: the run has no such figure)."""
    verdicts = summary["verdicts"]
    figures: dict[str, float | int | None] = {
        "statements": summary["statements"], "grounded statements": summary["grounded_statements"],
        "plain tests": summary["tests"].get("plain", 0), "transformed tests": summary["tests"].get("transformed", 0),
        "transformation attempts": summary["attempts"], "not applicable attempts": summary["not_applicable"],
    }
    for kind in ("plain", "transformed"):
        for verdict in ("pass", "fail", "inconclusive"):
            figures[f"{kind} tests {verdict}"] = int(verdicts.get(kind, {}).get(verdict, 0))
    figures["target errors"] = summary["target_errors"]
    figures["LLM calls"] = sum(summary["llm_calls"].values())
    for row in evaluation_rows(metrics or {}, summary["run_id"]):
        figures[row["metric"]] = row["value"]
    return figures


def headline_rows(current: Mapping[str, float | int | None],
                  previous: Mapping[str, float | int | None] | None) -> list[dict[str, Any]]:
    """measure, this night, previous night, change — one row per measure of ``current``."""
    rows = []
    for measure, value in current.items():
        before = previous.get(measure) if previous else None
        change = _round(value - before) if value is not None and before is not None else None
        rows.append({"measure": measure, "this night": value, "previous night": before, "change": change})
    return uniform_rows(rows)


def night_markdown(summary: Mapping[str, Any], headline: list[dict[str, Any]], previous: str | None,
                   diff: str | None, report: str | None, tables: list[str], run_url: str | None = None) -> str:
    """The nightly flow run's summary: headline figures next to the previous night's, what changed
    (``adat diff`` against the previous night of the same config), links to the report and tables."""
    run_id = summary["run_id"]
    lines = [f"# adat nightly `{run_id}`", ""]
    lines += [line for line in summary_markdown(dict(summary)).splitlines()[2:] if line.startswith(">")]
    lines += ["", f"Previous night of the same config: `{previous}`" if previous
              else "First night of this config: nothing to compare with.", "",
              "| measure | this night | previous night | change |", "|---|---|---|---|"]
    lines += [f"| {r['measure']} | {cell(r['this night'])} | {cell(r['previous night'])} | {_change(r['change'])} |"
              for r in headline]
    lines += ["", "## What changed", ""]
    if diff:  # adat diff's markdown, its headings one level down
        lines += [f"#{line}" if line.startswith("#") else line for line in diff.splitlines()]
    else:
        lines.append("Nothing to compare with: this is the first night of this config.")
    lines += ["", "## Links", ""]
    if report:
        lines.append(f"* HTML report (self-contained): [{report}]({_file_uri(report)})")
    where = f"the Artifacts tab of [this flow run]({run_url})" if run_url else "the Artifacts tab of this flow run"
    lines.append(f"* Tables on {where}: " + ", ".join(f"`{t}`" for t in tables))
    lines.append(f"* Parquet tables: `{summary['tables']}`; DuckDB catalog: `{summary['catalog']}` "
                 f"(`adat sql stg_runs --run {run_id}`)")
    return "\n".join(lines)


def _file_uri(path: str) -> str:
    """A link to the report: its URL when it is served over HTTP (adat serve-reports), else a file URI."""
    from pathlib import Path

    if path.startswith(("http://", "https://")):
        return path
    return Path(path).resolve().as_uri()


def _reached(activated: Any) -> str:
    return "not measured" if activated is None else "yes" if activated else "no (unreached)"


def _round(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def cell(value: Any) -> str:
    """A figure in a table cell: '—' when missing, a float to 3 decimals (the report's too)."""
    if value is None:
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _change(value: Any) -> str:
    if value is None:
        return "—"
    if value == 0:
        return "="
    return f"{value:+.3f}" if isinstance(value, float) else f"{value:+d}"
