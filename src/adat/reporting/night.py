"""The Prefect UI artifacts of a run, an evaluation and a night, gathered from the warehouse.

Each function returns :class:`UIArtifacts` (markdown and tables by artifact key, every table's
rows with the same columns); ``flows/_artifacts.py`` publishes them on the flow run that calls it.
The night compares with the previous night of the same config (``sql/report/previous_same_config.sql``)
and folds in ``adat diff`` against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adat.config import RunConfig
from adat.reporting import artifacts as a


@dataclass
class UIArtifacts:
    """key -> (markdown, description) and key -> (rows, description), in publishing order."""

    markdown: dict[str, tuple[str, str]] = field(default_factory=dict)
    tables: dict[str, tuple[list[dict[str, Any]], str]] = field(default_factory=dict)

    def table(self, key: str, rows: list[dict[str, Any]], description: str) -> None:
        """Add a table (nothing when it has no rows); its rows get the same columns."""
        if rows:
            self.tables[key] = (a.uniform_rows(rows), description)


def run_artifacts(root: Path, run_id: str) -> UIArtifacts:
    """A run's summary markdown (``adat-run-summary``) and its verdicts per kind (``adat-verdicts``)."""
    from adat.report import run_summary, summary_markdown

    summary = run_summary(root, run_id)
    out = UIArtifacts(markdown={"adat-run-summary": (summary_markdown(summary), f"adat run {run_id}")})
    out.table("adat-verdicts", a.verdict_rows(summary), f"verdicts of run {run_id}")
    return out


def _metrics(cfg: RunConfig, run_id: str, faults: list[str] | None) -> dict[str, list[dict[str, Any]] | None]:
    from adat.evaluation.report import evaluation_metrics

    return evaluation_metrics(cfg, run_id, faults=faults)


def evaluation_artifacts(cfg: RunConfig, run_id: str, faults: list[str] | None) -> UIArtifacts:
    """V/C, V_E/C, FAR, accuracy and the mutation score (``adat-evaluation``), detection per fault
    (``adat-fault-detection``) and both as markdown (``adat-evaluation-summary``)."""
    from adat.report import is_offline

    metrics = _metrics(cfg, run_id, faults)
    offline = is_offline(cfg.data_path(), run_id)
    out = UIArtifacts(markdown={"adat-evaluation-summary": (a.evaluation_markdown(metrics, run_id, offline),
                                                            f"evaluation of run {run_id}")})
    out.table("adat-evaluation", a.evaluation_rows(metrics, run_id), f"evaluation metrics of run {run_id}")
    out.table("adat-fault-detection", a.fault_rows(metrics), f"detection per seeded fault, run {run_id}")
    return out


def audited(root: Path, run_id: str) -> bool:
    """Whether any test of ``run_id`` has an audit label (an evaluation ran on it)."""
    from adat.warehouse.queries import ReportQueries

    return any(r["validity"] != "unaudited" for r in ReportQueries(root).rows("audit_validity_counts", run_id=run_id))


def _headline_metrics(cfg: RunConfig, run_id: str, faults: list[str] | None) -> dict[str, list[dict[str, Any]] | None]:
    """The evaluation metrics of an audited run; none (its figures None, not 0) for one never evaluated."""
    return _metrics(cfg, run_id, faults) if audited(cfg.data_path(), run_id) else {}


def previous_night(root: Path, run_id: str) -> str | None:
    """The latest earlier run of the same flow and config (None on the first night)."""
    from adat.warehouse.queries import ReportQueries

    rows = ReportQueries(root).rows("previous_same_config", run_id=run_id)
    return str(rows[0]["run_id"]) if rows else None


def night_artifacts(cfg: RunConfig, run_id: str, report: str | None = None, faults: list[str] | None = None,
                    evaluated: bool = False, run_url: str | None = None) -> UIArtifacts:
    """The nightly flow run's artifacts: the ``adat-nightly`` summary (headline figures next to the
    previous night's, what changed, links) and its tables — ``adat-nightly-headline``,
    ``adat-verdicts``, ``adat-verdict-changes`` and, when ``evaluated``, the evaluation's tables."""
    from adat.report import run_summary
    from adat.reporting.run_diff import diff_markdown, previous_run_diff

    root = cfg.data_path()
    summary = run_summary(root, run_id)
    metrics = _headline_metrics(cfg, run_id, faults)
    previous = previous_night(root, run_id)
    before = a.headline_figures(run_summary(root, previous), _headline_metrics(cfg, previous, faults)) if previous else None
    headline = a.headline_rows(a.headline_figures(summary, metrics), before)
    out = UIArtifacts()
    out.table("adat-nightly-headline", headline, f"run {run_id} next to {previous or 'no previous night'}")
    out.table("adat-verdicts", a.verdict_rows(summary), f"verdicts of run {run_id}")
    diff = previous_run_diff(root, run_id, query="previous_same_config") if previous else None
    if diff is not None:
        out.table("adat-verdict-changes", [{"change": r["change"], "test_id": r["test_id"], "kind": r["kind"],
                                            "agent_variant": r["agent_variant"]} for r in diff.verdict_changes],
                  f"verdict changes {previous} → {run_id}")
    if evaluated:
        out.table("adat-evaluation", a.evaluation_rows(metrics, run_id), f"evaluation metrics of run {run_id}")
        out.table("adat-fault-detection", a.fault_rows(metrics), f"detection per seeded fault, run {run_id}")
    text = a.night_markdown(summary, headline, previous, diff_markdown(diff) if diff else None, report,
                            list(out.tables), run_url)
    out.markdown = {"adat-nightly": (text, f"adat nightly {run_id}")}
    return out
