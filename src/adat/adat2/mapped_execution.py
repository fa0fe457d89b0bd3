"""The execution stage split for a task runner: which tests, one test executed and judged, the write.

``flows/execute.py`` maps :func:`execute_and_judge` over the tests as Prefect tasks under the
task runner of ``execution.task_runner`` (threads, or Dask for a suite that outgrows a machine);
:func:`record_executions` then writes what they returned with :func:`write_phase`, which is the
write of the in-process :func:`adat.adat2.adat2_steps.execution_step` too (the same test selection,
owners and variant). Each mapped call builds its own target and LLM client, so it can run in
another process or on another machine that sees the same data dir.
"""

from __future__ import annotations

from collections import Counter
from typing import cast

from pydantic import BaseModel, ConfigDict

from adat.config import RunConfig
from adat.engine.context import RunContext, phase_owner
from adat.engine.stage_runner import Outcome
from adat.records import Execution, RuleEvent, TestCase, Verdict


class ExecutedTest(BaseModel):
    """One test's execution, its verdict and the target's side log of its session."""

    model_config = ConfigDict(extra="forbid")

    execution: Execution
    verdict: Verdict
    rule_events: list[RuleEvent] = []


def phase_tests(ctx: RunContext, kind: str = "plain", suite_run_id: str | None = None,
                test_ids: list[str] | None = None) -> list[TestCase]:
    """The tests of ``kind`` ('all' = every kind) of ``ctx``'s run or of ``suite_run_id``, in suite
    order, limited to ``test_ids`` when given; a suite run with no tests is a user error."""
    tests = [t for t in cast(list[TestCase], ctx.read("tests", suite_run_id or ctx.run_id))
             if kind == "all" or t.kind == kind]
    if suite_run_id and suite_run_id != ctx.run_id and not tests:
        from adat.adat2.run_suite_check import no_suite

        raise no_suite(suite_run_id, ctx.root)
    if test_ids is not None:
        wanted = set(test_ids)
        tests = [t for t in tests if t.test_id in wanted]
    return tests


def write_phase(ctx: RunContext, tests: list[TestCase], executions: list[Execution], verdicts: list[Verdict],
                events: list[RuleEvent], kind: str, variant: str, suite_run_id: str | None = None,
                rejudged: list[Verdict] | None = None) -> Outcome:
    """Write one execution phase's rows as its own parts of the run (owner ``execution.<kind>.<variant>``):
    re-executing replaces them and nothing else, so plain and transformed tests and every faulty
    variant accumulate in one run. A run-suite run also gets a copy of the suite it executed."""
    owner = phase_owner(kind, variant)
    if suite_run_id and suite_run_id != ctx.run_id:
        ctx.write("tests", [t.model_copy(update={"run_id": ctx.run_id}) for t in tests], owner="suite")
    ctx.write("executions", executions, owner=owner)
    ctx.write("verdicts", verdicts, owner=owner)
    if rejudged is not None:  # repeated trials only: a single trial has nothing to disagree with
        ctx.write("rejudgements", rejudged, owner=owner)
    ctx.write("rule_events", events, owner=owner)
    return Outcome(counts=Counter(v.verdict for v in verdicts), tables={"executions": len(executions)},
                   step=f"execution:{kind}:{variant}", data={"agent_variant": variant})


def execution_tests(cfg: RunConfig, run_id: str, kind: str = "plain", suite_run_id: str | None = None,
                    test_ids: list[str] | None = None) -> list[TestCase]:
    """:func:`phase_tests` of run ``run_id``."""
    return phase_tests(RunContext(cfg, run_id), kind, suite_run_id, test_ids)


def execute_and_judge(cfg: RunConfig, run_id: str, test: TestCase, kind: str = "plain",
                      fault: str | None = None) -> ExecutedTest:
    """Run ``test`` in a fresh session of the target (or its ``fault`` variant) and judge it."""
    from adat.adat2.adat2_steps import process_checks_of
    from adat.stages.execution import execute_test
    from adat.stages.judging import judge_execution
    from adat.stages.process_checks import checks_for

    ctx = RunContext(cfg, run_id)
    variant = ctx.variant(fault)
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    execution = execute_test(target, test, run_id, agent_variant=variant)
    checks = checks_for(process_checks_of(ctx, test.run_id), test.statement_id)
    verdict = judge_execution(cfg, ctx.client, test, execution, run_id, checks=checks)
    events = ctx.rule_events(target, [execution], variant)
    ctx.flush_calls()
    return ExecutedTest(execution=execution, verdict=verdict, rule_events=events)


def record_executions(ctx: RunContext, tests: list[TestCase], results: list[ExecutedTest],
                      kind: str = "plain", suite_run_id: str | None = None, fault: str | None = None) -> Outcome:
    """Write what the mapped tasks returned, as :func:`write_phase` (the in-process stage's write)."""
    return write_phase(ctx, tests, [r.execution for r in results], [r.verdict for r in results],
                       [e for r in results for e in r.rule_events], kind, ctx.variant(fault), suite_run_id)
