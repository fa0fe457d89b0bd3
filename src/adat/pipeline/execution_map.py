"""The execution stage split for a task runner: which tests, one test executed and judged, the write.

``flows/execute.py`` maps :func:`execute_and_judge` over the tests as Prefect tasks under the
task runner of ``execution.task_runner`` (threads, or Dask for a suite that outgrows a machine);
:func:`record_executions` then writes what they returned, exactly as the in-process
:func:`adat.pipeline.steps.execution_step` does. Each mapped call builds its own target and LLM
client, so it can run in another process or on another machine that sees the same data dir.
"""

from __future__ import annotations

from collections import Counter
from typing import cast

from pydantic import BaseModel, ConfigDict

from adat.config import RunConfig
from adat.pipeline.context import RunContext, StepResult
from adat.records import Execution, RuleEvent, TestCase, Verdict


class ExecutedTest(BaseModel):
    """One test's execution, its verdict and the target's side log of its session."""

    model_config = ConfigDict(extra="forbid")

    execution: Execution
    verdict: Verdict
    rule_events: list[RuleEvent] = []


def execution_tests(cfg: RunConfig, run_id: str, kind: str = "plain", suite_run_id: str | None = None,
                    test_ids: list[str] | None = None) -> list[TestCase]:
    """The tests of ``kind`` ('all' = every kind) of this run or of ``suite_run_id``, in suite order."""
    ctx = RunContext(cfg, run_id)
    tests = [t for t in cast(list[TestCase], ctx.read("tests", suite_run_id or run_id)) if kind == "all" or t.kind == kind]
    if test_ids is not None:
        wanted = set(test_ids)
        tests = [t for t in tests if t.test_id in wanted]
    return tests


def execute_and_judge(cfg: RunConfig, run_id: str, test: TestCase, kind: str = "plain",
                      fault: str | None = None) -> ExecutedTest:
    """Run ``test`` in a fresh session of the target (or its ``fault`` variant) and judge it."""
    from adat.stages.execution import execute_test
    from adat.stages.judging import judge_execution

    ctx = RunContext(cfg, run_id)
    variant = fault or "original"
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    execution = execute_test(target, test, run_id, agent_variant=variant)
    verdict = judge_execution(cfg, ctx.client, test, execution, run_id)
    events = ctx.rule_events(target, [execution], variant)
    ctx.flush_calls()
    return ExecutedTest(execution=execution, verdict=verdict, rule_events=events)


def record_executions(cfg: RunConfig, run_id: str, tests: list[TestCase], results: list[ExecutedTest],
                      kind: str = "plain", suite_run_id: str | None = None, fault: str | None = None) -> StepResult:
    """Write the executions, verdicts and side log of ``results``; other kinds' and variants' rows stay."""
    ctx = RunContext(cfg, run_id)
    variant = fault or "original"
    executions = [r.execution for r in results]
    verdicts = [r.verdict for r in results]
    done = {e.execution_id for e in executions}
    sessions = {(e.session_id, e.agent_variant) for e in executions}
    old_exec = [e for e in cast(list[Execution], ctx.read("executions")) if e.execution_id not in done]
    old_verd = [v for v in cast(list[Verdict], ctx.read("verdicts")) if v.execution_id not in done]
    old_events = [e for e in cast(list[RuleEvent], ctx.read("rule_events")) if (e.session_id, e.agent_variant) not in sessions]
    ctx.write("executions", old_exec + executions)
    ctx.write("verdicts", old_verd + verdicts)
    ctx.write("rule_events", old_events + [e for r in results for e in r.rule_events])
    if suite_run_id and suite_run_id != run_id:
        ctx.write("tests", [t.model_copy(update={"run_id": run_id}) for t in tests])
    tally = Counter(v.verdict for v in verdicts)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step=f"execution:{kind}:{variant}",
                      tables={"executions": len(executions)}, counts={k: float(v) for k, v in tally.items()})
