"""Prefect tasks around :mod:`adat.reporting`: the HTML report and the UI artifacts' content.

Not cached: each compares with earlier runs in the warehouse, which change without these tasks'
inputs changing; each takes seconds.
"""

from __future__ import annotations

from prefect import task

from adat.config import RunConfig
from adat.reporting.night import UIArtifacts


@task(name="write-report")
def write_report(cfg: RunConfig, run_id: str, same_config: bool = False) -> str:
    """Write ``run_id``'s self-contained HTML report under ``<data>/reports/<run_id>/``; its path.
    ``same_config``: compare with the previous night of the same config (when there is one)."""
    from adat.reporting.html_report import write_report as write
    from adat.reporting.night import previous_night

    against = previous_night(cfg.data_path(), run_id) if same_config else None
    return str(write(cfg.data_path(), run_id, against=against))


@task(name="night-artifacts")
def night_artifacts(cfg: RunConfig, run_id: str, report: str | None, faults: list[str] | None, evaluated: bool,
                    run_url: str | None, suite_run: str | None = None, fresh: str | None = None) -> UIArtifacts:
    """The nightly summary and tables of ``run_id`` against the previous night of the same config
    (and, with ``suite_run``, pass -> fail against the blessed suite; ``fresh``: tonight's new suite)."""
    from adat.reporting.night import night_artifacts as gather

    return gather(cfg, run_id, report, faults, evaluated, run_url, suite_run=suite_run, fresh=fresh)


@task(name="evaluation-artifacts")
def evaluation_artifacts(cfg: RunConfig, run_id: str, faults: list[str] | None) -> UIArtifacts:
    """The evaluation metrics of suite run ``run_id`` (V/C, FAR, mutation score, per fault)."""
    from adat.reporting.night import evaluation_artifacts as gather

    return gather(cfg, run_id, faults)
