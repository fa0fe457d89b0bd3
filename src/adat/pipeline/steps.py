"""The AdaT2 pipeline as steps: each reads its inputs from the warehouse, runs one stage and
writes its outputs back, returning a :class:`StepResult` (counts, never rows).

Prefect tasks in ``tasks/`` wrap exactly one of these functions each; they are also plain
functions, so the whole pipeline can run (and be tested) without Prefect.
"""

from __future__ import annotations

import json
import threading
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


def finish_run(cfg: RunConfig, run_id: str, flow: str, status: str = "completed", stopped_in: str = "",
               error: str = "") -> StepResult:
    """Mark the run finished (``budget_exhausted``: ``stopped_in`` says where; ``failed``: ``error``
    is the error's one line) and rebuild the DuckDB catalog."""
    from adat.config import adat_home
    from adat.warehouse.catalog import build_catalog

    ctx = RunContext(cfg, run_id)
    ctx.record_run(flow, status, stopped_in=stopped_in, error=error)
    path = build_catalog(ctx.root, adat_home() / "sql")
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
    """Drop statements not grounded in their reply; rank the rest by confidence (its own table)."""
    from adat.stages.grounding import ground_statements

    ctx = RunContext(cfg, run_id)
    statements = cast(list[Statement], ctx.read("statements"))
    counts: Counter[str] = Counter()
    grounded = ground_statements(cfg, ctx.client, statements, counts=counts)
    ctx.write("ranked_statements", grounded)
    ctx.flush_calls()
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

    ctx = RunContext(cfg, run_id)
    variant = ctx.variant(fault)
    tests = phase_tests(ctx, kind, suite_run_id, test_ids)
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    client = ctx.client
    # Each worker executes a test and judges it at once (no barrier between the two); judge calls go
    # to the tester's LLM endpoint, so llm.concurrency bounds them (not execution.workers).
    judge_slots = threading.BoundedSemaphore(cfg.llm.concurrency)

    def execute_and_judge(test: TestCase) -> tuple[Execution, Verdict]:
        execution = execute_test(target, test, run_id, agent_variant=variant)
        with judge_slots:
            return execution, judge_execution(cfg, client, test, execution, run_id)

    pairs = run_tests(execute_and_judge, tests, cfg.execution.workers, progress)
    executions, verdicts = [e for e, _ in pairs], [v for _, v in pairs]
    return write_phase(ctx, tests, executions, verdicts, ctx.rule_events(target, executions, variant), kind,
                       variant, suite_run_id)


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


#: the transformation phase's own parts (one owner name across its tables)
TRANSFORMATION = "transformation"
_XF_TABLES = ("attempts", "tests", "executions", "verdicts", "rule_events")


def transformation_step(cfg: RunConfig, run_id: str, priors: dict[str, Any] | None = None,
                        progress: Progress | None = None, resume_key: str | None = None) -> StepResult:
    """Adaptive pair selection + generation of transformed tests, each executed and judged at once.

    Every attempt is persisted as soon as it ends: its test, execution, verdict and side log
    first, the attempt row last (the commit). Re-running the step with the same ``resume_key``
    (the stage's cache key) resumes after the last committed attempt; rows of an attempt that
    never committed are dropped first, so a kill at any point leaves no duplicate or orphan. A
    different key (changed inputs), or a stage that had completed, starts over.
    """
    from adat.embeddings import Embedder
    from adat.selection import make_selector
    from adat.stages.execution import execute_test
    from adat.stages.plain import top_statements
    from adat.stages.transformation import AttemptOutcome, transform

    ctx = RunContext(cfg, run_id)
    if resume_key is not None and not ctx.resumable(TRANSFORMATION, resume_key):
        for table in _XF_TABLES:
            ctx.write(table, [], owner=TRANSFORMATION)
    ctx.mark_stage(TRANSFORMATION, resume_key or "", "running")
    _drop_uncommitted(ctx)
    statements = top_statements(ranked_statements(ctx), cfg.generation.n)
    plain = [t for t in _tests(ctx) if t.kind == "plain"]
    traces = cast(list[Trace], ctx.read("traces"))
    instructions = cast(list[Instruction], ctx.read("instructions"))
    done_attempts = sorted(cast(list[Attempt], ctx.read("attempts", owner=TRANSFORMATION)), key=lambda a: a.attempt_no)
    done_tests = cast(list[TestCase], ctx.read("tests", owner=TRANSFORMATION))
    embeddings = Embedder(cache_dir(cfg)).embed([s.text for s in statements])
    selector = make_selector(cfg.selector, statements, instructions, embeddings, cfg.generation.n, cfg.seed,
                             priors={k: (float(v[0]), float(v[1])) for k, v in (priors or {}).items()},
                             llm_choose=_llm_choose(ctx) if cfg.selector.name == "llm" else None)
    target = ctx.target(scope="xf")
    variant = ctx.variant()

    def persist(outcome: AttemptOutcome) -> None:
        # One small part per attempt keeps a crash from losing finished work; compacted below.
        def part(table: str, rows: list[Any]) -> None:
            ctx.write(table, rows, replace=False, owner=TRANSFORMATION)

        if outcome.test is not None:
            part("tests", [outcome.test])
        if outcome.execution is not None:
            part("executions", [outcome.execution])
            part("rule_events", ctx.rule_events(target, [outcome.execution], variant))
        if outcome.verdict is not None:
            part("verdicts", [outcome.verdict])
        ctx.flush_calls()
        part("attempts", [outcome.attempt])  # the commit: written last

    counts: Counter[str] = Counter()
    transform(cfg, ctx.client, selector, target, statements, plain, traces, instructions, run_id,
              execute_fn=lambda test: execute_test(target, test, run_id, agent_variant=variant), progress=progress, done_attempts=done_attempts, done_tests=done_tests, on_attempt=persist,
              counts=counts)
    attempts_made = int(getattr(selector, "attempts", 0))
    if progress is not None and attempts_made:
        progress(attempts_made, attempts_made)  # the loop stopped before the budget: close the bar
    for table in _XF_TABLES:  # compact the phase's parts into one file per table
        ctx.write(table, ctx.read(table, owner=TRANSFORMATION), owner=TRANSFORMATION)
    ctx.mark_stage(TRANSFORMATION, resume_key or "", "completed")
    attempts = cast(list[Attempt], ctx.read("attempts", owner=TRANSFORMATION))
    n_tests = sum(1 for a in attempts if a.test_id)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="transformation",
                      tables={"attempts": len(attempts), "transformed_tests": n_tests},
                      counts={**{k: float(v) for k, v in counts.items()},
                              "not_applicable": sum(1 for a in attempts if a.outcome == "not_applicable")},
                      data={"stop_reason": selector.stop_reason() or ""})


def _drop_uncommitted(ctx: RunContext) -> None:
    """Keep only the transformation rows of committed attempts, each once (a kill may leave a test,
    execution or verdict without its attempt row, or a compaction half done)."""
    attempts = _unique(ctx.read("attempts", owner=TRANSFORMATION), lambda a: a.attempt_no)
    committed = {a.test_id for a in attempts if a.test_id}
    tests = _unique([t for t in ctx.read("tests", owner=TRANSFORMATION) if t.test_id in committed], lambda t: t.test_id)
    executions = _unique([e for e in ctx.read("executions", owner=TRANSFORMATION) if e.test_id in committed],
                         lambda e: e.execution_id)
    done = {e.execution_id for e in executions}
    sessions = {e.session_id for e in executions}
    verdicts = _unique([v for v in ctx.read("verdicts", owner=TRANSFORMATION) if v.execution_id in done],
                       lambda v: v.execution_id)
    events = _unique([e for e in ctx.read("rule_events", owner=TRANSFORMATION) if e.session_id in sessions],
                     lambda e: e.model_dump_json())
    for table, rows in zip(_XF_TABLES, (attempts, tests, executions, verdicts, events), strict=True):
        if len(rows) != len(ctx.read(table, owner=TRANSFORMATION)):
            ctx.write(table, rows, owner=TRANSFORMATION)


def _unique(rows: list[Any], key: Callable[[Any], Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for row in rows:
        k = key(row)
        if k not in seen:
            seen.add(k)
            out.append(row)
    return out


# --- helpers ---------------------------------------------------------------------------------
def _tests(ctx: RunContext, run_id: str | None = None) -> list[TestCase]:
    return cast(list[TestCase], ctx.read("tests", run_id))


def _all_attempts(ctx: RunContext) -> list[Attempt]:
    return cast(list[Attempt], read_records(ctx.root, "attempts"))


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
