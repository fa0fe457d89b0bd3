"""Tasks of the AdaT2 pipeline; one per ``adat.pipeline.steps`` function.

``code`` (the code fingerprint) and ``after`` (the upstream step's result) are inputs only so
that the cache key changes when either does.
"""

from __future__ import annotations

from typing import Any

from prefect import task

from adat.config import RunConfig
from adat.pipeline import steps
from adat.pipeline.context import StepResult
from adat.pipeline.fingerprint import stage_key
from adat.pipeline.transformation_step import transformation_step
from tasks._common import progress, stage_task


@task(name="start-run")
def start_run(cfg: RunConfig, run_id: str, flow: str, suite_run_id: str = "") -> StepResult:
    return steps.start_run(cfg, run_id, flow, suite_run_id)


@task(name="finish-run")
def finish_run(cfg: RunConfig, run_id: str, flow: str, after: Any = None, status: str = "completed",
               stopped_in: str = "") -> StepResult:
    return steps.finish_run(cfg, run_id, flow, status, stopped_in)


@stage_task("discovery")
def discover(cfg: RunConfig, run_id: str, code: str) -> StepResult:
    return steps.discovery_step(cfg, run_id, progress=progress("discovery sessions"))


@stage_task("extraction")
def extract(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.extraction_step(cfg, run_id)


@stage_task("grounding")
def ground(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.grounding_step(cfg, run_id)


@stage_task("plain-generation")
def generate_plain(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.plain_generation_step(cfg, run_id)


@stage_task("execution")
def execute(cfg: RunConfig, run_id: str, code: str, after: StepResult, kind: str = "plain",
            suite_run_id: str | None = None, fault: str | None = None) -> StepResult:
    return steps.execution_step(cfg, run_id, kind=kind, suite_run_id=suite_run_id, fault=fault,
                                progress=progress(f"executions ({kind}, {cfg.agent_variant(fault)})"))


@stage_task("selection-priors")
def selection_priors(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.selection_priors_step(cfg, run_id)


@stage_task("transformation")
def transform(cfg: RunConfig, run_id: str, code: str, after: StepResult, priors: StepResult) -> StepResult:
    key = stage_key("transformation", {"cfg": cfg, "run_id": run_id, "after": after, "priors": priors})
    return transformation_step(cfg, run_id, priors=priors.data.get("priors"), past=priors.data.get("past"),
                               progress=progress("transformation attempts"), resume_key=key)
