"""The AdaT2 pipeline as steps: each reads its inputs from the warehouse, runs one stage and
writes its outputs back, returning a :class:`StepResult` (counts, never rows).

Each is declared once in :mod:`adat.engine.stage_registry` and run by
:func:`adat.engine.stage_runner.run_stage` (which ``tasks/`` wraps as a Prefect task), so the whole
pipeline also runs (and is tested) without Prefect. The transformation step, with its resume
bookkeeping, is :mod:`adat.adat2.transformation_step`.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any, cast

from adat.config import RunConfig
from adat.engine.context import RunContext, StepResult
from adat.engine.stage_runner import Outcome
from adat.records import Execution, ProcessAssertion, Run, Statement, TestCase, Trace, Verdict

#: why a discovery may state no rule when the config hands the tester no test accounts
NO_FACTS_HINT = ("the config lists no tester_facts, so the tester had no account to identify with "
                 "(fix: list test accounts, ids and their state under tester_facts)")


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


def discovery_step(ctx: RunContext) -> Outcome:
    """Discovery sessions against the target (planner + driver) → traces, rule side log."""
    from adat.stages.discovery import discover

    target = ctx.target(scope="disc")
    traces = discover(ctx.cfg, ctx.client, target, ctx.run_id, progress=ctx.progress("discovery sessions"))
    ctx.write("traces", traces)
    ctx.write("rule_events", ctx.rule_events(target, traces, ctx.variant()), owner="discovery")
    return Outcome(counts={f"ended_{k}": v for k, v in Counter(t.ended_by for t in traces).items()})


def extraction_step(ctx: RunContext) -> Outcome:
    """Statements (condition + behaviour) from the agent replies of the discovery traces."""
    from adat.stages.statements import extract_statements

    counts: Counter[str] = Counter()
    traces = cast(list[Trace], ctx.read("traces"))
    statements = extract_statements(ctx.cfg, ctx.client, traces, ctx.run_id, counts=counts)
    ctx.write("statements", statements)
    replies = sum(1 for trace in traces for turn in trace.turns if turn.role == "agent")
    ctx.require("statements", len(statements), f"{len(traces)} discovery sessions ({replies} agent replies)",
                "" if ctx.cfg.tester_facts else NO_FACTS_HINT)
    return Outcome(counts=counts)


def grounding_step(ctx: RunContext) -> Outcome:
    """Drop statements not grounded in their reply; rank the rest by confidence (its own table)."""
    from adat.stages.statements import ground_statements

    counts: Counter[str] = Counter()
    grounded = ground_statements(ctx.cfg, ctx.client, cast(list[Statement], ctx.read("statements")), counts=counts)
    ctx.write("ranked_statements", grounded)
    counts["grounded"] = sum(1 for s in grounded if s.grounded)
    return Outcome(counts=counts)


def ranked_statements(ctx: RunContext) -> list[Statement]:
    """The run's statements as grounding left them (grounded, confidence, rank)."""
    return cast(list[Statement], ctx.read("ranked_statements"))


def process_checks_step(ctx: RunContext) -> Outcome:
    """The process checks of the top-ranked statements, over the tools seen in discovery
    (:mod:`adat.stages.process_checks`); none for a text-only target or ``judge.use_tool_trace: false``."""
    from adat.stages.process_checks import map_statements, tools_seen

    traces = cast(list[Trace], ctx.read("traces"))
    rows = map_statements(ctx.cfg, ctx.client, ranked_statements(ctx), traces, ctx.run_id)
    ctx.write("process_assertions", rows)
    return Outcome(counts={"process_checks": len(rows), "statements_checked": len({r.statement_id for r in rows}),
                           "tools_seen": len(tools_seen(traces))})


def process_checks_of(ctx: RunContext, suite_run_id: str | None = None) -> dict[str, list[ProcessAssertion]]:
    """The process checks of each statement id of this run (or of the suite run ``suite_run_id``);
    none when ``judge.use_tool_trace`` is off."""
    from adat.stages.process_checks import by_statement

    if not ctx.cfg.judge.use_tool_trace:
        return {}
    rows = cast(list[ProcessAssertion], ctx.read("process_assertions", suite_run_id or ctx.run_id))
    if not rows and suite_run_id is None:
        # a run-suite run maps no statements of its own: its fault regressions (``adat evaluate``
        # on it) judge with the checks of the suite run it executed, as its own executions did
        suite = next((r.suite_run_id for r in reversed(cast(list[Run], ctx.read("runs"))) if r.suite_run_id), "")
        if suite and suite != ctx.run_id:
            rows = cast(list[ProcessAssertion], ctx.read("process_assertions", suite))
    return by_statement(rows)


def plain_generation_step(ctx: RunContext) -> Outcome:
    """One plain test per top-n grounded statement."""
    from adat.stages.plain import generate_plain_tests

    traces = cast(list[Trace], ctx.read("traces"))
    tests, failures = generate_plain_tests(ctx.cfg, ctx.client, ranked_statements(ctx), traces, ctx.run_id)
    ctx.write("tests", tests, owner="plain")
    ranked = ranked_statements(ctx)
    ctx.require("plain tests", len(tests), f"{sum(1 for s in ranked if s.grounded)} grounded of {len(ranked)} "
                f"statements ({len(failures)} generator failures)")
    return Outcome(counts={"plain_tests": len(tests), "generator_failures": len(failures)})


def execution_step(ctx: RunContext, kind: str = "plain", suite_run_id: str | None = None,
                   fault: str | None = None, test_ids: list[str] | None = None) -> Outcome:
    """Execute tests of ``kind`` (of this run, or of ``suite_run_id``) in fresh sessions and judge them.

    ``test_ids`` limits the execution to those tests (the regression runs only the tests mapped
    to a fault). The executions, verdicts and side log are this phase's own parts of the run
    (owner ``execution.<kind>.<variant>``): re-executing replaces them and nothing else, so plain
    and transformed tests and every faulty variant accumulate in one run. The variant is
    ``fault``, else the config's ``target.fault``, else 'original'.
    """
    from adat.adat2.mapped_execution import phase_tests, write_phase
    from adat.stages.execution import execute_test, run_tests
    from adat.stages.judging import judge_execution
    from adat.stages.process_checks import checks_for
    from adat.stages.trials import Trial, rejudge_disagreeing, trials_of

    cfg, run_id = ctx.cfg, ctx.run_id
    variant = ctx.variant(fault)
    tests = phase_tests(ctx, kind, suite_run_id, test_ids)
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    client = ctx.client
    progress = ctx.progress(f"executions on {fault}" if fault else f"executions ({kind}, {variant})")
    # Each worker executes a test and judges it at once (no barrier between the two); judge calls go
    # to the tester's LLM endpoint, so llm.concurrency bounds them (not execution.workers).
    judge_slots = threading.BoundedSemaphore(cfg.llm.concurrency)

    checks = process_checks_of(ctx, suite_run_id)

    def judge(test: TestCase, execution: Execution, rejudge: bool = False) -> Verdict:
        with judge_slots:
            return judge_execution(cfg, client, test, execution, run_id, rejudge=rejudge,
                                   checks=checks_for(checks, test.statement_id))

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


def selection_priors_step(ctx: RunContext) -> StepResult:
    """Applicability history from earlier runs in the warehouse (the θ prior, and ``pooled``'s
    neighbour evidence; :mod:`adat.adat2.selection_history`)."""
    from adat.adat2.selection_history import (
        NO_HISTORY,
        earlier_attempts,
        for_selector,
        history_data,
        history_digest,
        run_starts,
    )

    cfg, run_id = ctx.cfg, ctx.run_id
    if cfg.selector.name in NO_HISTORY:
        data: dict[str, Any] = for_selector({}, cfg.selector.name)
        return StepResult(digest=history_digest(data), run_id=run_id, step="priors", data=data)
    # Only runs that started before this one: a re-run of this run id must see the same prior.
    started = run_starts(ctx.root)
    history = earlier_attempts(ctx.root, str(cfg.models.generator), started, before=started.get(run_id), exclude=run_id)
    data = for_selector(history_data(ctx.root, history, started), cfg.selector.name)
    return StepResult(digest=history_digest(data), run_id=run_id, step="priors",
                      counts={"history_attempts": len(history)}, data=data)
