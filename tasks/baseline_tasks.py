"""Tasks of the baselines and the selector ablation; one per ``adat.baselines.steps`` function.

Execution, judging and transformation reuse the pipeline's tasks (``tasks.pipeline_tasks``).
``code`` and ``after`` are inputs only so that the cache key changes when either does.
"""

from __future__ import annotations

from prefect import task

from adat.baselines import steps
from adat.config import RunConfig
from adat.pipeline.context import StepResult
from tasks._common import stage_task


@stage_task("copy-source-run")
def copy_source(cfg: RunConfig, run_id: str, code: str, source_run_id: str, scope: str) -> StepResult:
    return steps.copy_source_step(cfg, run_id, source_run_id, scope)  # type: ignore[arg-type]


@stage_task("agenteval-generation")
def generate_agenteval(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.agenteval_generation_step(cfg, run_id)


@stage_task("direct-generation")
def generate_direct(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.direct_generation_step(cfg, run_id)


@task(name="ablation-priors")  # not cached: cheap, and it must see the warehouse as it is now
def ablation_priors(cfg: RunConfig, source_run_id: str) -> StepResult:
    return steps.ablation_priors_step(cfg, source_run_id)
