"""Flow ``regress``: run an audited suite on seeded faulty variants of the agent (paper RQ4).

For each fault (``faults``, else ``evaluation.faults``; 'all' = every file in
catalogs/faults/retail) the selected valid boundary tests run on the faulty variant, are judged,
and are labelled against the original policy with attribution. The per-fault detection table and
the mutation score are SQL: ``adat sql fault_detection --run RUN`` / ``adat sql mutation_score``.
"""

from __future__ import annotations

import os

from prefect import flow, get_run_logger
from prefect.futures import as_completed
from prefect.settings import get_current_settings

from adat.config import RunConfig
from adat.engine.context import StepResult
from adat.evaluation.evaluation_steps import evaluation_faults
from flows._fault_runner import FaultRunner, prestart_workers
from tasks import stage_tasks as e
from tasks.stage_factory import bind


def regress_faults(cfg: RunConfig, run_id: str, audited: StepResult, faults: list[str],
                   refresh: bool | list[str] = False) -> list[StepResult]:
    """One cached regression task per fault (``regression-<fault id>``), all submitted at once.

    Each fault's regression writes only its own parts of the run, so they run concurrently under
    the flow's task runner (processes: labelling is CPU-bound). The original agent is replayed
    once per suite (``original-replays``) and handed to every regression. Each finished fault
    logs a progress line the UI shows (``regression 3/19: <fault> …``).
    """
    if not faults:
        return []
    replays = bind(e.original_replays, cfg, refresh=refresh)(cfg, run_id, audited)
    regress_one = bind(e.regress_fault, cfg, refresh=refresh)
    futures = [regress_one.with_options(task_run_name=f"regression-{fault}").submit(cfg, run_id, audited, fault=fault,
                                                                                    replays=replays)
               for fault in faults]
    log = get_run_logger()
    for done, future in enumerate(as_completed(futures), start=1):
        result = future.result()
        labels = ", ".join(f"{k} {int(v)}" for k, v in sorted(result.counts.items()) if k != "tests")
        log.info("regression %d/%d: %s (%d tests; %s)", done, len(futures), result.step.removeprefix("regression:"),
                 int(result.counts.get("tests", 0)), labels or "no labels")
    return [future.result() for future in futures]


#: most fault workers by default, however many cores: each holds the regression's modules and the
#: suite's replays in memory, and a suite has tens of faults
FAULT_WORKERS_CAP = 4


def fault_runner(workers: int | None = None) -> FaultRunner:
    """The task runner fault regressions fan out on: ``workers`` processes, else Prefect's
    ``PREFECT_TASKS_RUNNER_PROCESS_POOL_MAX_WORKERS``, else one per core up to
    :data:`FAULT_WORKERS_CAP`."""
    configured = get_current_settings().tasks.runner.process_pool_max_workers
    return FaultRunner(max_workers=workers or configured or max(1, min(os.cpu_count() or 1, FAULT_WORKERS_CAP)))


@flow(name="adat-regress", flow_run_name="{suite_run_id}-regress", log_prints=True, task_runner=fault_runner())
def regress(config: RunConfig, suite_run_id: str, faults: list[str] | None = None,
            refresh: bool | list[str] = False) -> StepResult:
    """Audit the suite of ``suite_run_id`` (cached) and run it on each seeded fault."""
    cfg = config
    chosen = evaluation_faults(cfg, faults)
    if chosen:
        prestart_workers(cfg)
    suite = e.suite_fingerprint(cfg, suite_run_id)
    audited = bind(e.audit, cfg, refresh=refresh)(cfg, suite_run_id, suite)
    results = regress_faults(cfg, suite_run_id, audited, chosen, refresh=refresh)
    e.rebuild_catalog(cfg, suite_run_id, after=results)
    return StepResult(run_id=suite_run_id, step="regress", data={"faults": chosen},
                      counts={"tests_run": float(sum(r.counts.get("tests", 0) for r in results))})
