"""Flow ``run_suite``: execute and judge an existing suite against the config's target."""

from __future__ import annotations

from prefect import flow, get_run_logger

from adat.config import RunConfig
from adat.llm.budget import BudgetExhausted, stopped_in
from adat.stages.execution import check_run_suite
from flows._artifacts import publish_run_artifacts
from flows._names import flow_run_run_id, run_named
from flows._run_status import RUN_HOOKS, open_run
from tasks import stage_tasks as t
from tasks.stage_factory import bind


@flow(name="adat-run-suite", flow_run_name=run_named("run-suite"), log_prints=True, **RUN_HOOKS)
def run_suite(config: RunConfig, suite_run_id: str, refresh: bool | list[str] = False) -> str:
    """Execute every test of run ``suite_run_id`` in a new run (e.g. against a new agent version)."""
    check_run_suite(config, suite_run_id)
    run_id = flow_run_run_id(config)
    cfg = config.model_copy(update={"run_id": run_id})
    open_run(cfg, run_id, "run_suite", suite_run_id=suite_run_id)
    try:
        done = bind(t.execute, cfg, refresh=refresh)(cfg, run_id, None, kind="all",
                                                     suite_run_id=suite_run_id)
    except BudgetExhausted as exc:  # a clean stop, recorded on the run
        get_run_logger().warning("%s; the run stops here", exc)
        t.finish_run(cfg, run_id, "run_suite", status="budget_exhausted", stopped_in=stopped_in(exc))
    else:
        t.finish_run(cfg, run_id, "run_suite", after=done)
    publish_run_artifacts(cfg, run_id)
    return run_id
