"""Flow ``discover``: discovery conversations with the target → traces."""

from __future__ import annotations

from prefect import flow

from adat.config import RunConfig
from adat.pipeline.context import StepResult, new_run_id
from adat.pipeline.fingerprint import code_fingerprint
from tasks import pipeline_tasks as t
from tasks._common import bind


@flow(name="adat-discover", log_prints=True)
def discover(config: RunConfig, refresh: bool | list[str] = False) -> StepResult:
    """Run the discovery sessions of ``config`` (planner + driver against the target)."""
    run_id = config.run_id or new_run_id()
    cfg = config.model_copy(update={"run_id": run_id})
    return bind(t.discover, cfg, refresh=refresh)(cfg, run_id, code_fingerprint())
