"""``adat report RUN``: one self-contained HTML file with the run's plots, failures and changes.

Every number and plot comes from a query in ``sql/report`` or ``sql/metrics`` (see
:mod:`adat.warehouse.queries`); the plots are inline SVG from :mod:`adat.reporting.figures`, the
page is a jinja2 template with autoescaping, and nothing is fetched at view time (no scripts, no
external styles, fonts or images). Statements are compared with the previous run of the same
flow and target (``sql/report/previous_run.sql``) unless another run is named.

Everything is about the agent variant the run executed (``runs.agent_variant``: the original, or
the fault of a ``run-suite`` run on a faulty target): its verdicts, its failures and, for a
``run-suite`` run, the tests that passed in the suite run and fail now (``verdict_changes``).
A run nobody audited says "not audited", never a rate of 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from adat import redaction
from adat.config import OFFLINE_MODEL
from adat.errors import UserError
from adat.reporting import figures
from adat.reporting.artifacts import cell
from adat.reporting.figures import agent_name
from adat.reporting.run_diff import StatementDiff, statement_diff
from adat.reporting.show import split_checks, tool_call_lines
from adat.warehouse.queries import ReportQueries

#: plot id -> title, in page order; every id is one <figure class="plot" id="plot-…"> in the page
PLOTS: dict[str, str] = {
    "coverage": "Transformed tests and distinct statements covered vs attempts",
    "instructions": "Instruction pulls and mean reward",
    "verdicts": "Verdicts on the agent the run executed",
    "audit": "Audit validity and execution labels",
    "faults": "Detection per seeded fault",
    "statements": "Statements since the previous run",
}


@dataclass
class Plot:
    key: str
    title: str
    svg: Markup | None
    missing: str


def _by_execution(queries: ReportQueries, query: str, run_id: str,
                  execution_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {e: [] for e in execution_ids}
    if execution_ids:
        for row in queries.rows(query, run_id=run_id, execution_ids=execution_ids):
            out[row["execution_id"]].append(row)
    return out


def _transcripts(queries: ReportQueries, run_id: str, execution_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    return {e: [{**row, "calls": tool_call_lines(row.get("tool_calls"))} for row in rows]
            for e, rows in _by_execution(queries, "execution_transcripts", run_id, execution_ids).items()}


def _pass_to_fail(queries: ReportQueries, suite: str, run_id: str) -> list[dict[str, Any]]:
    """The tests that passed in the suite run (on the agent it executed) and fail in this run."""
    return [r for r in queries.rows("verdict_changes", run_a=suite, run_b=run_id)
            if r["change"] == "pass -> fail" and r["variant_key"] == "(run target)"]


def report_context(queries: ReportQueries, run_id: str, against: str | None = None) -> dict[str, Any]:
    """Everything the template shows, from SQL (and the statement matching of run_diff)."""
    if not queries.run_exists(run_id):
        raise UserError(f"run {run_id!r} has no tests or executions in {queries.data_root}", field="RUN",
                        fix="pass a run id from `adat sql stg_runs`, or --data-dir of its warehouse")
    one = {"run_id": run_id}
    previous = against
    if previous is None:
        found = queries.rows("previous_run", **one)
        previous = found[0]["run_id"] if found else None
    changes: StatementDiff | None = statement_diff(queries, previous, run_id) if previous else None
    change_counts = ({"appeared": len(changes.appeared), "vanished": len(changes.vanished),
                      "changed": len(changes.changed), "unchanged": changes.unchanged} if changes else {})
    overview = queries.rows("run_overview", **one)
    run = overview[0] if overview else {}
    variant = run.get("agent_variant") or "original"
    suite = run.get("suite_run_id")
    validity = queries.rows("audit_validity_counts", **one)
    labels = queries.rows("execution_label_counts", **one)
    drawn = {
        "coverage": (figures.coverage_plot(queries.rows("transformation_progress", **one)),
                     "no transformation attempts in this run"),
        "instructions": (figures.instruction_plot(queries.rows("instruction_stats", **one)),
                         "no transformation attempts in this run"),
        "verdicts": (figures.verdict_plot(queries.rows("verdict_counts", **one), variant),
                     f"no judged executions on {agent_name(variant)}"),
        "audit": (figures.audit_plot(validity, labels), f"not audited: run `adat evaluate --run {run_id}`"),
        "faults": (figures.fault_plot(queries.rows("fault_detection", **one)),
                   f"no seeded faults run: `adat evaluate --run {run_id}` or `adat regress`"),
        "statements": (figures.statement_change_plot(change_counts),
                       "no earlier run of the same flow and target" if previous is None
                       else f"no grounded statements in {previous} or {run_id}"),
    }
    titles = {**PLOTS, "verdicts": f"Verdicts on {agent_name(variant)}"}
    plots = [Plot(key, titles[key], Markup(drawn[key][0]) if drawn[key][0] else None, drawn[key][1])
             for key in PLOTS]
    failing = queries.rows("non_passing_executions", **one)
    ids = [r["execution_id"] for r in failing]
    transcripts = _transcripts(queries, run_id, ids)
    checks = {e: split_checks(rows)
              for e, rows in _by_execution(queries, "show_process_checks", run_id, ids).items()}
    usage = queries.rows("llm_usage", **one)
    return {
        "run_id": run_id,
        "run": run,
        "variant": variant,
        "agent": agent_name(variant),
        "suite": suite,
        "pass_to_fail": _pass_to_fail(queries, suite, run_id) if suite else [],
        "previous": previous,
        "plots": plots,
        "verdicts": [r for r in queries.rows("verdict_counts", **one) if r["agent_variant"] == variant],
        "validity": queries.rows("validity_rate", **one),
        "detection": queries.rows("seeded_fault_detection", **one),
        "mutation": queries.rows("mutation_score", **one),
        "far": queries.rows("false_alarm_rate", **one),
        "failing": [{**r, "turns": transcripts[r["execution_id"]], "checks": checks[r["execution_id"]][0],
                     "checks_passed": checks[r["execution_id"]][1]} for r in failing],
        "changes": changes,
        "usage": usage,
        "offline": any(u["provider_model"] == OFFLINE_MODEL for u in usage),
    }


def render_report(context: dict[str, Any]) -> str:
    """The HTML page for a :func:`report_context`."""
    env = Environment(loader=PackageLoader("adat.reporting", "templates"),  # package data, found by importlib
                      autoescape=select_autoescape(["html", "j2"]), undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True)
    env.filters["num"] = cell
    return env.get_template("run_report.html.j2").render(**context)


def write_report(data_root: Path, run_id: str, out: Path | None = None, against: str | None = None) -> Path:
    """Write the report of ``run_id`` (default ``<data>/reports/<run_id>/report.html``) atomically;
    returns the path."""
    queries = ReportQueries(data_root)
    html = render_report(report_context(queries, run_id, against))
    path = Path(out) if out else Path(data_root) / "reports" / run_id / "report.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(redaction.scrub(html), encoding="utf-8")  # secrets never stored (adat.redaction)
    tmp.replace(path)
    return path
