"""Flow ``pipeline``: the whole AdaT2 run — discover, build the suite, finish, publish."""

from __future__ import annotations

from prefect import flow, get_run_logger

from adat.config import RunConfig
from adat.llm.budget import BudgetExhausted, stopped_in
from flows._artifacts import publish_run_artifacts
from flows._names import flow_run_run_id, run_named
from flows._run_status import RUN_HOOKS, open_run
from flows.build_suite import build_suite
from tasks import stage_tasks as t
from tasks.stage_factory import bind


@flow(name="adat-pipeline", flow_run_name=run_named("pipeline"), log_prints=True, **RUN_HOOKS)
def pipeline(config: RunConfig, refresh: bool | list[str] = False, publish: bool = True) -> str:
    """Run AdaT2 end to end on ``config``; returns the run id (its tables are in the warehouse).

    ``publish=False``: no UI artifacts here (the nightly flow publishes its own on its run)."""
    run_id = flow_run_run_id(config)
    cfg = config.model_copy(update={"run_id": run_id})
    open_run(cfg, run_id, "pipeline")
    try:
        discovered = bind(t.discover, cfg, refresh=refresh)(cfg, run_id)
        built = build_suite(cfg, run_id, after=discovered, refresh=refresh)
    except BudgetExhausted as exc:  # a clean stop: what the finished stages wrote stays
        get_run_logger().warning("%s; the run stops here", exc)
        t.finish_run(cfg, run_id, "pipeline", status="budget_exhausted", stopped_in=stopped_in(exc))
    else:
        t.finish_run(cfg, run_id, "pipeline", after=built)
    if publish:
        publish_run_artifacts(cfg, run_id)
    return run_id
