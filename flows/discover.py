"""Flow ``discover``: discovery conversations with the target → traces."""

from __future__ import annotations

from prefect import flow

from adat.config import RunConfig
from adat.engine.context import StepResult
from flows._names import flow_run_run_id, run_named
from tasks import stage_tasks as t
from tasks.stage_factory import bind


@flow(name="adat-discover", flow_run_name=run_named("discover"), log_prints=True)
def discover(config: RunConfig, refresh: bool | list[str] = False) -> StepResult:
    """Run the discovery sessions of ``config`` (planner + driver against the target)."""
    run_id = flow_run_run_id(config)
    cfg = config.model_copy(update={"run_id": run_id})
    return bind(t.discover, cfg, refresh=refresh)(cfg, run_id)
