"""Flow ``execute``: every test executed and judged as one Prefect task, mapped over the suite.

The run config chooses (``execution.task_runner``): ``threads`` (default) keeps the stage one
cached task with a thread pool of ``execution.workers``; ``dask`` maps one task per test under
prefect-dask's ``DaskTaskRunner`` — on the scheduler at ``execution.dask_address``, else on a
local cluster of ``execution.dask_workers`` — when a suite outgrows one machine. Dask workers
must see the same data directory (a shared filesystem).
"""

from __future__ import annotations

from typing import Any

from prefect import flow, unmapped
from prefect.task_runners import ThreadPoolTaskRunner

from adat.config import RunConfig
from adat.engine.context import StepResult
from tasks import stage_tasks as t
from tasks.stage_factory import bind


def task_runner(cfg: RunConfig) -> Any:
    """The task runner ``cfg.execution`` asks for."""
    ex = cfg.execution
    if ex.task_runner == "threads":
        return ThreadPoolTaskRunner(max_workers=ex.workers)
    from prefect_dask import DaskTaskRunner

    if ex.dask_address:
        return DaskTaskRunner(address=ex.dask_address)
    return DaskTaskRunner(cluster_kwargs={"n_workers": ex.dask_workers, "processes": ex.dask_processes,
                                          "threads_per_worker": max(1, ex.workers // ex.dask_workers),
                                          "dashboard_address": None})


@flow(name="adat-execute", flow_run_name="{run_id}-execute-{kind}", log_prints=True)
def execute_mapped(config: RunConfig, run_id: str, kind: str = "plain", suite_run_id: str | None = None,
                   fault: str | None = None, refresh: bool = False, after: Any = None) -> StepResult:
    """Execute and judge the tests of ``kind`` (of ``suite_run_id`` or this run), one task per test."""
    cfg = config
    tests = t.execution_tests(cfg, run_id, kind, suite_run_id)
    variant = cfg.agent_variant(fault)
    one = bind(t.execute_and_judge, cfg, refresh=refresh).with_options(
        task_run_name=f"execution-{variant}-{{test.test_id}}")
    futures = one.map(unmapped(cfg), unmapped(run_id), tests, kind=unmapped(kind), fault=unmapped(fault))
    results = [f.result() for f in futures]
    return bind(t.record_executions, cfg, refresh=refresh)(cfg, run_id, None, tests=tests, results=results, kind=kind,
                                                           suite_run_id=suite_run_id, fault=fault)


def execute(cfg: RunConfig, run_id: str, kind: str = "plain", suite_run_id: str | None = None,
            fault: str | None = None, refresh: bool = False, after: Any = None) -> StepResult:
    """The execution stage: in-process (one cached task, a thread pool of ``execution.workers``) for
    ``task_runner: threads``, else :func:`execute_mapped` under the Dask task runner."""
    if cfg.execution.task_runner == "threads":
        return bind(t.execute, cfg, refresh=refresh)(cfg, run_id, after, kind=kind,
                                                     suite_run_id=suite_run_id, fault=fault)
    return execute_mapped.with_options(task_runner=task_runner(cfg))(cfg, run_id, kind, suite_run_id, fault,
                                                                     refresh, after)
