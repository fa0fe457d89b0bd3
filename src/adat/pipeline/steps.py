"""The AdaT2 pipeline as steps: each reads its inputs from the warehouse, runs one stage and
writes its outputs back, returning a :class:`StepResult` (counts, never rows).

Prefect tasks in ``tasks/`` wrap exactly one of these functions each; they are also plain
functions, so the whole pipeline can run (and be tested) without Prefect. The transformation
step, with its resume bookkeeping, is :mod:`adat.pipeline.transformation_step`.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from adat.config import RunConfig
from adat.pipeline.context import RunContext, StepResult
from adat.records import Execution, Run, Statement, TestCase, Trace, Verdict

Progress = Callable[[int, int], None]


def start_run(cfg: RunConfig, run_id: str, flow: str, suite_run_id: str = "") -> StepResult:
    """Record the run (status running; ``suite_run_id``: the suite a run-suite run executes) and
    snapshot the instruction catalog it uses."""
    from adat.instruction_catalog import load_instructions

    ctx = RunContext(cfg, run_id)
    ctx.record_run(flow, "running", suite_run_id=suite_run_id)
    instructions = load_instructions()
    ctx.write("instructions", instructions)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="start", tables={"runs": 1, "instructions": len(instructions)})


def finish_run(cfg: RunConfig, run_id: str, flow: str, status: str = "completed", stopped_in: str = "",
               error: str = "") -> StepResult:
    """Mark the run finished (``budget_exhausted``: ``stopped_in`` says where; ``failed``: ``error``
    is the error's one line) and bring the DuckDB catalog up to date."""
    from adat.config import adat_home
    from adat.warehouse.catalog import refresh_catalog

    ctx = RunContext(cfg, run_id)
    ctx.record_run(flow, status, stopped_in=stopped_in, error=error)
    path = refresh_catalog(ctx.root, adat_home() / "sql")
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="finish", data={"catalog": str(path), "status": status})


def fail_run(cfg: RunConfig, run_id: str, flow: str, error: str) -> bool:
    """Mark the run ``failed`` with ``error`` if it is still ``running`` (a flow failed after it
    started); a run that already finished keeps its status. Returns whether the run was marked."""
    runs = cast(list[Run], RunContext(cfg, run_id).read("runs"))
    if not runs or runs[-1].status != "running":
        return False
    finish_run(cfg, run_id, flow, status="failed", error=error)
    return True


def discovery_step(cfg: RunConfig, run_id: str, progress: Progress | None = None) -> StepResult:
    """Discovery sessions against the target (planner + driver) → traces, rule side log."""
    from adat.stages.discovery import discover

    ctx = RunContext(cfg, run_id)
    target = ctx.target(scope="disc")
    traces = discover(cfg, ctx.client, target, run_id, progress=progress)
    ctx.write("traces", traces)
    events = ctx.rule_events(target, traces, ctx.variant())
    ctx.write("rule_events", events, owner="discovery")
    ctx.flush_calls()
    ctx.check_models("discovery")
    ended = Counter(t.ended_by for t in traces)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="discovery", tables={"traces": len(traces), "rule_events": len(events)},
                      counts={f"ended_{k}": v for k, v in ended.items()})


def extraction_step(cfg: RunConfig, run_id: str) -> StepResult:
    """Statements (condition + behaviour) from the agent replies of the discovery traces."""
    from adat.stages.extraction import extract_statements

    ctx = RunContext(cfg, run_id)
    traces = cast(list[Trace], ctx.read("traces"))
    counts: Counter[str] = Counter()
    statements = extract_statements(cfg, ctx.client, traces, run_id, counts=counts)
    ctx.write("statements", statements)
    ctx.flush_calls()
    ctx.check_models("extraction")
    ctx.require("extraction", "statements", len(statements))
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="extraction", tables={"statements": len(statements)}, counts=dict(counts))


def grounding_step(cfg: RunConfig, run_id: str) -> StepResult:
    """Drop statements not grounded in their reply; rank the rest by confidence (its own table)."""
    from adat.stages.grounding import ground_statements

    ctx = RunContext(cfg, run_id)
    statements = cast(list[Statement], ctx.read("statements"))
    counts: Counter[str] = Counter()
    grounded = ground_statements(cfg, ctx.client, statements, counts=counts)
    ctx.write("ranked_statements", grounded)
    ctx.flush_calls()
    ctx.check_models("grounding")
    counts["grounded"] = sum(1 for s in grounded if s.grounded)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="grounding", tables={"ranked_statements": len(grounded)}, counts=dict(counts))


def ranked_statements(ctx: RunContext) -> list[Statement]:
    """The run's statements as grounding left them (grounded, confidence, rank)."""
    return cast(list[Statement], ctx.read("ranked_statements"))


def plain_generation_step(cfg: RunConfig, run_id: str) -> StepResult:
    """One plain test per top-n grounded statement."""
    from adat.stages.plain import generate_plain_tests

    ctx = RunContext(cfg, run_id)
    traces = cast(list[Trace], ctx.read("traces"))
    tests, failures = generate_plain_tests(cfg, ctx.client, ranked_statements(ctx), traces, run_id)
    ctx.write("tests", tests, owner="plain")
    ctx.flush_calls()
    ctx.check_models("plain-generation")
    ctx.require("plain-generation", "plain tests", len(tests))
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="plain", tables={"tests": len(tests)},
                      counts={"plain_tests": len(tests), "generator_failures": len(failures)})


def execution_step(cfg: RunConfig, run_id: str, kind: str = "plain", suite_run_id: str | None = None,
                   fault: str | None = None, progress: Progress | None = None,
                   test_ids: list[str] | None = None) -> StepResult:
    """Execute tests of ``kind`` (of this run, or of ``suite_run_id``) in fresh sessions and judge them.

    ``test_ids`` limits the execution to those tests (the regression runs only the tests mapped
    to a fault). The executions, verdicts and side log are this phase's own parts of the run
    (owner ``execution.<kind>.<variant>``): re-executing replaces them and nothing else, so plain
    and transformed tests and every faulty variant accumulate in one run. The variant is
    ``fault``, else the config's ``target.fault``, else 'original'.
    """
    from adat.pipeline.execution_map import phase_tests, write_phase
    from adat.stages.execution import execute_test, run_tests
    from adat.stages.judging import judge_execution
    from adat.stages.trials import Trial, rejudge_disagreeing, trials_of

    ctx = RunContext(cfg, run_id)
    variant = ctx.variant(fault)
    tests = phase_tests(ctx, kind, suite_run_id, test_ids)
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    client = ctx.client
    # Each worker executes a test and judges it at once (no barrier between the two); judge calls go
    # to the tester's LLM endpoint, so llm.concurrency bounds them (not execution.workers).
    judge_slots = threading.BoundedSemaphore(cfg.llm.concurrency)

    def judge(test: TestCase, execution: Execution, rejudge: bool = False) -> Verdict:
        with judge_slots:
            return judge_execution(cfg, client, test, execution, run_id, rejudge=rejudge)

    def execute_and_judge(trial: Trial) -> tuple[Execution, Verdict]:
        test, number = trial
        execution = execute_test(target, test, run_id, agent_variant=variant, trial=number)
        return execution, judge(test, execution)

    # k trials of each test are k independent units of work: 16 workers run 16 sessions at once
    pairs = run_tests(execute_and_judge, trials_of(tests, cfg.execution.repeat), cfg.execution.workers, progress)
    executions, verdicts = [e for e, _ in pairs], [v for _, v in pairs]
    rejudged = None if cfg.execution.repeat <= 1 else rejudge_disagreeing(
        executions, verdicts, tests, lambda t, e: judge(t, e, rejudge=True),
        lambda fn, todo: run_tests(fn, todo, cfg.execution.workers))
    return write_phase(ctx, tests, executions, verdicts, ctx.rule_events(target, executions, variant), kind,
                       variant, suite_run_id, rejudged=rejudged)


def selection_priors_step(cfg: RunConfig, run_id: str) -> StepResult:
    """Applicability history from earlier runs in the warehouse (the θ prior, and ``pooled``'s
    neighbour evidence; :mod:`adat.pipeline.history`)."""
    from adat.pipeline.history import (
        NO_HISTORY,
        earlier_attempts,
        for_selector,
        history_data,
        history_digest,
        run_starts,
    )

    ctx = RunContext(cfg, run_id)
    if cfg.selector.name in NO_HISTORY:
        data: dict[str, Any] = for_selector({}, cfg.selector.name)
        return StepResult(digest=history_digest(data), run_id=run_id, step="priors", data=data)
    # Only runs that started before this one: a re-run of this run id must see the same prior.
    started = run_starts(ctx.root)
    history = earlier_attempts(ctx.root, str(cfg.models.generator), started, before=started.get(run_id), exclude=run_id)
    data = for_selector(history_data(ctx.root, history, started), cfg.selector.name)
    return StepResult(digest=history_digest(data), run_id=run_id, step="priors",
                      counts={"history_attempts": len(history)}, data=data)


# --- helpers ---------------------------------------------------------------------------------
def _tests(ctx: RunContext, run_id: str | None = None) -> list[TestCase]:
    return cast(list[TestCase], ctx.read("tests", run_id))
