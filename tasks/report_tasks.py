"""Prefect task around :func:`adat.reporting.write_report` (the nightly flow links its file)."""

from __future__ import annotations

from prefect import task

from adat.config import RunConfig


# Not cached: the report compares with the previous run in the warehouse, which changes without
# this task's inputs changing; writing it takes seconds.
@task(name="write-report")
def write_report(cfg: RunConfig, run_id: str) -> str:
    """Write ``run_id``'s self-contained HTML report under ``<data>/reports/<run_id>/``; its path."""
    from adat.reporting import write_report as write

    return str(write(cfg.data_path(), run_id))


@task(name="diff-previous-run")
def diff_previous_run(cfg: RunConfig, run_id: str) -> str | None:
    """Markdown of ``run_id`` against the previous run of the same flow and target; None on the first."""
    from adat.reporting.run_diff import diff_markdown, previous_run_diff

    diff = previous_run_diff(cfg.data_path(), run_id)
    return diff_markdown(diff) if diff else None
