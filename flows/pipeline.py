"""Flow ``pipeline``: the whole AdaT2 run — discover, build the suite, finish, publish."""

from __future__ import annotations

from prefect import flow, get_run_logger

from adat.config import RunConfig
from adat.llm.budget import BudgetExhausted, stopped_in
from adat.pipeline.context import new_run_id
from adat.pipeline.fingerprint import code_fingerprint
from flows._artifacts import publish_run_artifacts
from flows._run_status import RUN_HOOKS, open_run
from flows.build_suite import build_suite
from tasks import pipeline_tasks as t
from tasks._common import bind


@flow(name="adat-pipeline", log_prints=True, **RUN_HOOKS)
def pipeline(config: RunConfig, refresh: bool | list[str] = False) -> str:
    """Run AdaT2 end to end on ``config``; returns the run id (its tables are in the warehouse)."""
    run_id = config.run_id or new_run_id()
    cfg = config.model_copy(update={"run_id": run_id})
    open_run(cfg, run_id, "pipeline")
    try:
        discovered = bind(t.discover, cfg, refresh=refresh)(cfg, run_id, code_fingerprint())
        built = build_suite(cfg, run_id, after=discovered, refresh=refresh)
    except BudgetExhausted as exc:  # a clean stop: what the finished stages wrote stays
        get_run_logger().warning("%s; the run stops here", exc)
        t.finish_run(cfg, run_id, "pipeline", status="budget_exhausted", stopped_in=stopped_in(exc))
    else:
        t.finish_run(cfg, run_id, "pipeline", after=built)
    publish_run_artifacts(cfg, run_id)
    return run_id
