"""Prefect UI artifacts with a run's headline figures."""

from __future__ import annotations

from pathlib import Path

from prefect.artifacts import create_link_artifact, create_markdown_artifact, create_table_artifact

from adat.config import RunConfig
from adat.report import run_summary, summary_markdown


def publish_run_artifacts(cfg: RunConfig, run_id: str) -> None:
    """A markdown summary and a verdict table, keyed so the UI tracks them night after night."""
    summary = run_summary(cfg.data_path(), run_id)
    create_markdown_artifact(key="adat-run-summary", markdown=summary_markdown(summary),
                             description=f"adat run {run_id}")
    rows = [{"kind": kind, **counts} for kind, counts in sorted(summary["verdicts"].items())]
    if rows:
        create_table_artifact(key="adat-verdicts", table=rows, description=f"verdicts of run {run_id}")


def publish_report_link(report: str, run_id: str) -> None:
    """A link artifact to the run's HTML report (``adat report``), keyed like the summary."""
    create_link_artifact(key="adat-report", link=Path(report).resolve().as_uri(), link_text=f"adat report {run_id}",
                         description=f"self-contained HTML report of run {run_id}: {report}")


def publish_diff(markdown: str | None, run_id: str) -> None:
    """The diff against the previous night as a markdown artifact (nothing on the first night)."""
    if markdown:
        create_markdown_artifact(key="adat-diff", markdown=markdown, description=f"run {run_id} vs the previous run")
