"""Tasks of the mapped execution stage; one per ``adat.pipeline.execution_map`` function."""

from __future__ import annotations

from prefect import task

from adat.config import RunConfig
from adat.pipeline import execution_map as m
from adat.pipeline.context import StepResult
from adat.records import TestCase
from tasks._common import in_phase, stage_task

# Not cached (cheap, and it must read the suite as it is now); its phase is execution's.
execution_tests = task(name="execution-tests")(in_phase("execution", m.execution_tests))


@stage_task("execution")
def execute_and_judge(cfg: RunConfig, run_id: str, code: str, test: TestCase, kind: str = "plain",
                      fault: str | None = None) -> m.ExecutedTest:
    return m.execute_and_judge(cfg, run_id, test, kind, fault)


@stage_task("record-executions")  # cached: a re-run must hand transformation the same digest
def record_executions(cfg: RunConfig, run_id: str, tests: list[TestCase], results: list[m.ExecutedTest],
                      kind: str = "plain", suite_run_id: str | None = None, fault: str | None = None) -> StepResult:
    return m.record_executions(cfg, run_id, tests, results, kind, suite_run_id, fault)
