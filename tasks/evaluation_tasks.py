"""Tasks of the evaluation (auditing, groupings, execution labels, regression on seeded faults);
one per ``adat.evaluation.steps`` function.

``code`` (the code fingerprint), ``suite`` (the suite's fingerprint) and ``after`` (the upstream
step's result) are inputs only so that the cache key changes when any of them does.
"""

from __future__ import annotations

from typing import Any

from prefect import task

from adat.config import RunConfig
from adat.evaluation import steps
from adat.pipeline.context import StepResult
from tasks._common import progress, stage_task


@task(name="suite-fingerprint")
def suite_fingerprint(cfg: RunConfig, run_id: str) -> str:
    return steps.suite_fingerprint(cfg, run_id)


@stage_task("audit")
def audit(cfg: RunConfig, run_id: str, code: str, suite: str) -> StepResult:
    return steps.audit_step(cfg, run_id, progress=progress("audited tests"))


@stage_task("groupings")
def group(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.grouping_step(cfg, run_id)


@stage_task("execution-labels")
def label(cfg: RunConfig, run_id: str, code: str, after: StepResult, variant: str = "original") -> StepResult:
    return steps.labelling_step(cfg, run_id, variant=variant)


@stage_task("original-replays")
def original_replays(cfg: RunConfig, run_id: str, code: str, after: StepResult) -> StepResult:
    return steps.original_replays_step(cfg, run_id)


@stage_task("regression")
def regress_fault(cfg: RunConfig, run_id: str, code: str, after: StepResult, fault: str,
                  replays: StepResult | None = None) -> StepResult:
    return steps.regression_step(cfg, run_id, fault, replays.paths.get("replays") if replays else None,
                                 progress=progress(f"executions on {fault}"))


@task(name="evaluation-catalog")
def rebuild_catalog(cfg: RunConfig, run_id: str, after: Any = None) -> StepResult:
    return steps.catalog_step(cfg, run_id)
