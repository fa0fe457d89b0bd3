"""The AdaT2 pipeline as steps: each reads its inputs from the warehouse, runs one stage and
writes its outputs back, returning a :class:`StepResult` (counts, never rows).

Prefect tasks in ``tasks/`` wrap exactly one of these functions each; they are also plain
functions, so the whole pipeline can run (and be tested) without Prefect.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from adat.config import RunConfig, cache_dir
from adat.pipeline.context import RunContext, StepResult
from adat.records import Attempt, Execution, Instruction, Run, Statement, TestCase, Trace, Verdict
from adat.warehouse.parquet import read_records

Progress = Callable[[int, int], None]


def start_run(cfg: RunConfig, run_id: str, flow: str) -> StepResult:
    """Record the run (status running) and snapshot the instruction catalog it uses."""
    from adat.instruction_catalog import load_instructions

    ctx = RunContext(cfg, run_id)
    ctx.record_run(flow, "running")
    instructions = load_instructions()
    ctx.write("instructions", instructions)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="start", tables={"runs": 1, "instructions": len(instructions)})


def finish_run(cfg: RunConfig, run_id: str, flow: str, status: str = "completed", stopped_in: str = "") -> StepResult:
    """Mark the run finished (``budget_exhausted``: ``stopped_in`` says where) and rebuild the DuckDB catalog."""
    from adat.config import adat_home
    from adat.warehouse.catalog import build_catalog

    ctx = RunContext(cfg, run_id)
    ctx.record_run(flow, status, stopped_in=stopped_in)
    path = build_catalog(ctx.root, adat_home() / "sql")
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="finish", data={"catalog": str(path), "status": status})


def discovery_step(cfg: RunConfig, run_id: str, progress: Progress | None = None) -> StepResult:
    """Discovery sessions against the target (planner + driver) → traces, rule side log."""
    from adat.stages.discovery import discover

    ctx = RunContext(cfg, run_id)
    target = ctx.target(scope="disc")
    traces = discover(cfg, ctx.client, target, run_id, progress=progress)
    ctx.write("traces", traces)
    events = ctx.rule_events(target, traces, "original")
    ctx.write("rule_events", events)
    ctx.flush_calls()
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
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="extraction", tables={"statements": len(statements)}, counts=dict(counts))


def grounding_step(cfg: RunConfig, run_id: str) -> StepResult:
    """Drop statements not grounded in their reply; rank the rest by confidence."""
    from adat.stages.grounding import ground_statements

    ctx = RunContext(cfg, run_id)
    statements = cast(list[Statement], ctx.read("statements"))
    counts: Counter[str] = Counter()
    grounded = ground_statements(cfg, ctx.client, statements, counts=counts)
    ctx.write("statements", grounded)
    ctx.flush_calls()
    counts["grounded"] = sum(1 for s in grounded if s.grounded)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="grounding", tables={"statements": len(grounded)}, counts=dict(counts))


def plain_generation_step(cfg: RunConfig, run_id: str) -> StepResult:
    """One plain test per top-n grounded statement."""
    from adat.stages.plain import generate_plain_tests

    ctx = RunContext(cfg, run_id)
    statements = cast(list[Statement], ctx.read("statements"))
    traces = cast(list[Trace], ctx.read("traces"))
    tests, failures = generate_plain_tests(cfg, ctx.client, statements, traces, run_id)
    kept = [t for t in _tests(ctx) if t.kind != "plain"]
    ctx.write("tests", kept + tests)
    ctx.flush_calls()
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="plain", tables={"tests": len(tests)},
                      counts={"plain_tests": len(tests), "generator_failures": len(failures)})


def execution_step(cfg: RunConfig, run_id: str, kind: str = "plain", suite_run_id: str | None = None,
                   fault: str | None = None, progress: Progress | None = None,
                   test_ids: list[str] | None = None) -> StepResult:
    """Execute tests of ``kind`` (of this run, or of ``suite_run_id``) in fresh sessions and judge them.

    ``test_ids`` limits the execution to those tests (the regression runs only the tests mapped
    to a fault). Executions and verdicts of other kinds/variants already in the run are kept, so
    plain and transformed tests and every faulty variant accumulate in one run.
    """
    from adat.stages.concurrency import map_in_order
    from adat.stages.execution import execute_tests
    from adat.stages.judging import judge_execution

    ctx = RunContext(cfg, run_id)
    variant = fault or "original"
    source = suite_run_id or run_id
    tests = [t for t in _tests(ctx, source) if kind == "all" or t.kind == kind]
    if test_ids is not None:
        wanted = set(test_ids)
        tests = [t for t in tests if t.test_id in wanted]
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    executions = execute_tests(target, tests, run_id, cfg.execution.workers, progress, agent_variant=variant)
    by_test = {t.test_id: t for t in tests}
    client = ctx.client
    # Judge calls go to the tester's LLM endpoint, so llm.concurrency bounds them (not execution.workers).
    verdicts = map_in_order(lambda e: judge_execution(cfg, client, by_test[e.test_id], e, run_id), executions,
                            cfg.llm.concurrency, name="adat-judge")
    done = {e.execution_id for e in executions}
    old_exec = [e for e in cast(list[Execution], ctx.read("executions")) if e.execution_id not in done]
    old_verd = [v for v in cast(list[Verdict], ctx.read("verdicts")) if v.execution_id not in done]
    ctx.write("executions", old_exec + executions)
    ctx.write("verdicts", old_verd + verdicts)
    ctx.write("rule_events", _events_without(ctx, executions) + ctx.rule_events(target, executions, variant))
    if suite_run_id and suite_run_id != run_id:
        # a run_suite run carries a copy of the suite it executed (same test ids)
        ctx.write("tests", [t.model_copy(update={"run_id": run_id}) for t in tests])
    ctx.flush_calls()
    tally = Counter(v.verdict for v in verdicts)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step=f"execution:{kind}:{variant}", tables={"executions": len(executions)},
                      counts={k: float(v) for k, v in tally.items()})


def selection_priors_step(cfg: RunConfig, run_id: str) -> StepResult:
    """Per-instruction applicability history from earlier runs in the warehouse (the θ prior)."""
    from adat.selection import instruction_history_priors

    ctx = RunContext(cfg, run_id)
    if cfg.selector.name == "cold-start":
        return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="priors", data={"priors": {}})
    # Only runs that started before this one: a re-run of this run id must see the same prior.
    started = {r.run_id: r.started_at for r in cast(list[Run], read_records(ctx.root, "runs"))}
    own = started.get(run_id)
    # Only attempts made by this run's generator model (another model's, or the offline
    # stand-in's, applicability says nothing about this one's), and no errors.
    generator = str(cfg.models.generator)
    history = [a for a in _all_attempts(ctx)
               if a.run_id != run_id and (own is None or (a.run_id in started and started[a.run_id] < own))
               and a.generator == generator and a.outcome != "error"]
    priors = instruction_history_priors(history, generator=generator)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="priors", counts={"history_attempts": len(history)},
                      data={"priors": {k: list(v) for k, v in priors.items()}})


def transformation_step(cfg: RunConfig, run_id: str, priors: dict[str, Any] | None = None,
                        progress: Progress | None = None) -> StepResult:
    """Adaptive pair selection + generation of transformed tests, each executed and judged at once.

    Every attempt is persisted as soon as it ends; re-running the step resumes after the last
    persisted attempt instead of starting over (nothing is lost on a crash).
    """
    from adat.embeddings import Embedder
    from adat.selection import make_selector
    from adat.stages.plain import top_statements
    from adat.stages.transformation import AttemptOutcome, transform

    ctx = RunContext(cfg, run_id)
    statements = top_statements(cast(list[Statement], ctx.read("statements")), cfg.generation.n)
    tests = _tests(ctx)
    plain = [t for t in tests if t.kind == "plain"]
    traces = cast(list[Trace], ctx.read("traces"))
    instructions = cast(list[Instruction], ctx.read("instructions"))
    done_attempts = sorted(cast(list[Attempt], ctx.read("attempts")), key=lambda a: a.attempt_no)
    done_tests = [t for t in tests if t.kind == "transformed"]
    embeddings = Embedder(cache_dir(cfg)).embed([s.text for s in statements])
    selector = make_selector(cfg.selector, statements, instructions, embeddings, cfg.generation.n, cfg.seed,
                             priors={k: (float(v[0]), float(v[1])) for k, v in (priors or {}).items()},
                             llm_choose=_llm_choose(ctx) if cfg.selector.name == "llm" else None)
    target = ctx.target(scope="xf")

    def persist(outcome: AttemptOutcome) -> None:
        # One small part per attempt keeps a crash from losing finished work; compacted below.
        # The attempt row goes last: resume replays attempts, so one must never lack its test,
        # execution, verdict or LLM-call rows.
        if outcome.test is not None:
            ctx.write("tests", [outcome.test], replace=False)
        if outcome.execution is not None:
            ctx.write("executions", [outcome.execution], replace=False)
            ctx.write("rule_events", ctx.rule_events(target, [outcome.execution], "original"), replace=False)
        if outcome.verdict is not None:
            ctx.write("verdicts", [outcome.verdict], replace=False)
        ctx.flush_calls()
        ctx.write("attempts", [outcome.attempt], replace=False)

    counts: Counter[str] = Counter()
    transform(cfg, ctx.client, selector, target, statements, plain, traces, instructions, run_id,
              progress=progress, done_attempts=done_attempts, done_tests=done_tests, on_attempt=persist,
              counts=counts)
    attempts_made = int(getattr(selector, "attempts", 0))
    if progress is not None and attempts_made:
        progress(attempts_made, attempts_made)  # the loop stopped before the budget: close the bar
    for table in ("attempts", "tests", "executions", "verdicts", "rule_events", "llm_calls"):
        ctx.write(table, ctx.read(table))  # compact the run's parts into one file
    attempts = cast(list[Attempt], ctx.read("attempts"))
    n_tests = sum(1 for a in attempts if a.test_id)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="transformation",
                      tables={"attempts": len(attempts), "transformed_tests": n_tests},
                      counts={**{k: float(v) for k, v in counts.items()},
                              "not_applicable": sum(1 for a in attempts if a.outcome == "not_applicable")},
                      data={"stop_reason": selector.stop_reason() or ""})


# --- helpers ---------------------------------------------------------------------------------
def _tests(ctx: RunContext, run_id: str | None = None) -> list[TestCase]:
    return cast(list[TestCase], ctx.read("tests", run_id))


def _all_attempts(ctx: RunContext) -> list[Attempt]:
    return cast(list[Attempt], read_records(ctx.root, "attempts"))


def _events_without(ctx: RunContext, executions: list[Execution]) -> list[Any]:
    # Keyed by variant too, so re-executing one variant can never drop another variant's side log.
    sessions = {(e.session_id, e.agent_variant) for e in executions}
    return [e for e in ctx.read("rule_events") if (e.session_id, e.agent_variant) not in sessions]


def _llm_choose(ctx: RunContext) -> Callable[[list[Any]], tuple[str, str] | None]:
    """The LLM selector's chooser: asks the selector role for one untried pair."""
    from adat.llm.types import LLMError
    from adat.roles import PROMPT_SELECTOR, SelectorCandidate, SelectorInput, SelectorOutput

    history: list[str] = []

    def choose(candidates: list[Any]) -> tuple[str, str] | None:
        views = [SelectorCandidate(statement_id=c.statement_id, statement=c.statement_text,
                                   instruction_id=c.instruction_id, instruction=c.instruction_title)
                 for c in candidates]
        request = SelectorInput(attempt_no=len(history) + 1, history=history[-30:], candidates=views)
        try:
            out = ctx.client.structured("selector", PROMPT_SELECTOR, request.model_dump(), SelectorOutput)
        except LLMError:
            return None
        history.append(json.dumps([out.statement_id, out.instruction_id]))
        return out.statement_id, out.instruction_id

    return choose
