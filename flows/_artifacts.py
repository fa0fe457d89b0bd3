"""Publish adat's UI artifacts (built in :mod:`adat.reporting.night`) on the current flow run."""

from __future__ import annotations

from pathlib import Path

from prefect.artifacts import create_link_artifact, create_markdown_artifact, create_table_artifact

from adat.config import RunConfig
from adat.reporting.night import UIArtifacts, run_artifacts


def publish(artifacts: UIArtifacts) -> None:
    """Every markdown and table artifact, keyed so the UI tracks them run after run."""
    for key, (markdown, description) in artifacts.markdown.items():
        create_markdown_artifact(key=key, markdown=markdown, description=description)
    for key, (rows, description) in artifacts.tables.items():
        create_table_artifact(key=key, table=rows, description=description)


def publish_run_artifacts(cfg: RunConfig, run_id: str) -> None:
    """A markdown summary and a verdict table of ``run_id``."""
    publish(run_artifacts(cfg.data_path(), run_id))


def publish_report_link(report: str, run_id: str) -> None:
    """A link artifact to the run's HTML report (``adat report``), keyed like the summary: its URL
    when the reports are served over HTTP (``adat serve-reports``), else a file URI."""
    link = report if report.startswith(("http://", "https://")) else Path(report).resolve().as_uri()
    create_link_artifact(key="adat-report", link=link, link_text=f"adat report {run_id}",
                         description=f"self-contained HTML report of run {run_id}: {report}")
