"""Every Prefect task of adat's flows: one per declared stage (:mod:`adat.engine.stage_registry`),
made by :func:`tasks.stage_factory.stage_task`, and the uncached bookkeeping around them.

A stage task is called ``task(cfg, run_id, after, **step_params)``; ``after`` (the upstream
results, a suite's or a spec's digest) only enters the cache key.
"""

from __future__ import annotations

from typing import Any

from prefect import task

from adat.baselines.baseline_steps import ablation_priors_step
from adat.config import RunConfig
from adat.engine import stage_runner
from adat.engine.context import StepResult
from adat.engine.stage_registry import stage
from adat.engine.table_checks import run_checks
from adat.evaluation import evaluation_steps
from adat.stages import execution
from adat.tdad.spec_suite_steps import start_run as start_spec_run_step
from tasks.stage_factory import in_phase, stage_task

# --- AdaT2 pipeline ---------------------------------------------------------------------------
discover = stage_task("discovery")
extract = stage_task("extraction")
ground = stage_task("grounding")
map_process_checks = stage_task("process-checks")
generate_plain = stage_task("plain-generation")
execute = stage_task("execution")
selection_priors = stage_task("selection-priors")
transform = stage_task("transformation")
# execution.task_runner dask: one task per test (under the execution stage's key), then the write
execute_and_judge = stage_task("execution", execution.execute_and_judge)
record_executions = stage_task("record-executions")  # cached: a re-run must hand transformation the same digest
# --- evaluation -------------------------------------------------------------------------------
audit = stage_task("audit")
group = stage_task("groupings")
label = stage_task("execution-labels")
original_replays = stage_task("original-replays")
regress_fault = stage_task("regression")
# --- baselines and the selector ablation ------------------------------------------------------
copy_source = stage_task("copy-source-run")
generate_agenteval = stage_task("agenteval-generation")
generate_direct = stage_task("direct-generation")
# --- spec suites (TDAD) -----------------------------------------------------------------------
spec_tests = stage_task("spec-tests")
compile_prompt = stage_task("spec-compile")
rerun = stage_task("spec-reliability")
mutate = stage_task("spec-mutate")

# --- bookkeeping (not cached) -----------------------------------------------------------------
start_run = task(name="start-run")(stage_runner.start_run)
start_spec_run = task(name="spec-start-run")(start_spec_run_step)
suite_fingerprint = task(name="suite-fingerprint")(evaluation_steps.suite_fingerprint)
# cheap, and it must read the suite (or the warehouse) as it is now
execution_tests = task(name="execution-tests")(in_phase("execution", execution.execution_tests))
ablation_priors = task(name="ablation-priors")(ablation_priors_step)


@task(name="finish-run")
def finish_run(cfg: RunConfig, run_id: str, flow: str, after: Any = None, status: str = "completed",
               stopped_in: str = "") -> StepResult:
    """Mark the run finished (``after``: what it waited for) and bring the catalog up to date."""
    return stage_runner.finish_run(cfg, run_id, flow, status, stopped_in)


@task(name="evaluation-catalog")
def rebuild_catalog(cfg: RunConfig, run_id: str, after: Any = None) -> StepResult:
    """After every fault's regression (the join): the checks over their tables, then the catalog
    brought up to date. The regressions fan out concurrently, so their checks run here, once."""
    run_checks(cfg.data_path(), run_id, stage("regression").writes, "regression")
    return evaluation_steps.catalog_step(cfg, run_id)
