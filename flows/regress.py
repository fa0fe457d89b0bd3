"""Flow ``regress``: run an audited suite on seeded faulty variants of the agent (paper RQ4).

For each fault (``faults``, else ``evaluation.faults``; 'all' = every file in
catalogs/faults/retail) the selected valid boundary tests run on the faulty variant, are judged,
and are labelled against the original policy with attribution. The per-fault detection table and
the mutation score are SQL: ``adat sql fault_detection --run RUN`` / ``adat sql mutation_score``.
"""

from __future__ import annotations

from prefect import flow

from adat.config import RunConfig
from adat.evaluation.steps import evaluation_faults
from adat.pipeline.context import StepResult
from adat.pipeline.fingerprint import code_fingerprint
from tasks import evaluation_tasks as e
from tasks._common import bind


def regress_faults(cfg: RunConfig, run_id: str, code: str, audited: StepResult, faults: list[str],
                   refresh: bool = False) -> list[StepResult]:
    """One cached regression task per fault, in order: they share the run's executions table."""
    results: list[StepResult] = []
    after = audited
    for fault in faults:
        after = bind(e.regress_fault, cfg, refresh=refresh)(cfg, run_id, code, after, fault)
        results.append(after)
    return results


@flow(name="adat-regress", log_prints=True)
def regress(config: RunConfig, suite_run_id: str, faults: list[str] | None = None,
            refresh: bool = False) -> StepResult:
    """Audit the suite of ``suite_run_id`` (cached) and run it on each seeded fault."""
    cfg, code = config, code_fingerprint()
    chosen = evaluation_faults(cfg, faults)
    suite = e.suite_fingerprint(cfg, suite_run_id)
    audited = bind(e.audit, cfg, refresh=refresh)(cfg, suite_run_id, code, suite)
    results = regress_faults(cfg, suite_run_id, code, audited, chosen, refresh=refresh)
    e.rebuild_catalog(cfg, suite_run_id, after=results)
    return StepResult(run_id=suite_run_id, step="regress", data={"faults": chosen},
                      counts={"tests_run": float(sum(r.counts.get("tests", 0) for r in results))})
