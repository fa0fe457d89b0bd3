"""Tasks of the spec suite (TDAD); one per ``adat.tdad.steps`` function.

``code`` (the code fingerprint), ``files`` (digest of the spec / pack / seed files the step
reads) and ``after`` (the upstream step's result) are inputs only so that the cache key changes
when any of them does.
"""

from __future__ import annotations

from prefect import task

from adat.config import RunConfig
from adat.pipeline.context import StepResult
from adat.tdad import steps
from tasks._common import stage_task


@stage_task("spec-tests")
def spec_tests(cfg: RunConfig, run_id: str, code: str, files: str, spec_path: str) -> StepResult:
    return steps.tests_step(cfg, run_id, spec_path)


@stage_task("spec-compile")
def compile_prompt(cfg: RunConfig, run_id: str, code: str, files: str, after: StepResult, spec_path: str,
                   start: str) -> StepResult:
    return steps.compile_step(cfg, run_id, spec_path, start)


@stage_task("spec-reliability")
def rerun(cfg: RunConfig, run_id: str, code: str, files: str, after: StepResult, spec_path: str,
          base_run: str | None, base_spec_path: str | None) -> StepResult:
    return steps.reliability_step(cfg, run_id, spec_path, base_run, base_spec_path)


@stage_task("spec-mutate")
def mutate(cfg: RunConfig, run_id: str, code: str, files: str, after: StepResult, spec_path: str,
           pack_path: str) -> StepResult:
    return steps.mutate_step(cfg, run_id, spec_path, pack_path)


@task(name="spec-start-run")
def start_spec_run(cfg: RunConfig, run_id: str) -> StepResult:
    return steps.start_run(cfg, run_id)
