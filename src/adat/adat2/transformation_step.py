"""The transformation step: adaptive pair selection and generation of transformed tests, each
executed and judged at once, persisted attempt by attempt and resumable after a crash.

Split from :mod:`adat.adat2.adat2_steps` (the other steps) because its resume bookkeeping — the
phase's own parts, the commit order, dropping what never committed — is a unit of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from adat.adat2.adat2_steps import ranked_statements
from adat.config import cache_dir
from adat.engine.context import RunContext, StepResult
from adat.engine.stage_runner import Outcome
from adat.records import Attempt, Instruction, TestCase, Trace

if TYPE_CHECKING:
    from adat.embeddings import Embedder
    from adat.selection.pooled import PastAttempts

#: the transformation phase's own parts (one owner name across its tables)
TRANSFORMATION = "transformation"
_XF_TABLES = ("attempts", "tests", "executions", "verdicts", "rule_events")


def transformation_step(ctx: RunContext, priors: StepResult | None = None) -> Outcome:
    """Adaptive pair selection + generation of transformed tests, each executed and judged at once.

    ``priors``: the selection-priors stage's result (the θ prior, ``pooled``'s past attempts).
    Every attempt is persisted as soon as it ends: its test, execution, verdict and side log
    first, the attempt row last (the commit). Re-running the step with the same ``ctx.key``
    (the stage's cache key) resumes after the last committed attempt; rows of an attempt that
    never committed are dropped first, so a kill at any point leaves no duplicate or orphan. A
    different key (changed inputs), or a stage that had completed, starts over.
    """
    from adat.adat2.adat2_steps import process_checks_of
    from adat.adat2.selection_history import USES_PAST
    from adat.embeddings import Embedder
    from adat.selection import make_selector
    from adat.stages.execution import execute_test
    from adat.stages.plain import top_statements
    from adat.stages.transformation import AttemptOutcome, transform

    cfg, run_id, resume_key = ctx.cfg, ctx.run_id, ctx.key
    past = priors.data.get("past") if priors else None
    progress = ctx.progress("transformation attempts")
    if resume_key is not None and not ctx.resumable(TRANSFORMATION, resume_key):
        for table in _XF_TABLES:
            ctx.write(table, [], owner=TRANSFORMATION)
    ctx.mark_stage(TRANSFORMATION, resume_key or "", "running")
    _drop_uncommitted(ctx)
    statements = top_statements(ranked_statements(ctx), cfg.generation.n)
    plain = [t for t in cast(list[TestCase], ctx.read("tests")) if t.kind == "plain"]
    traces = cast(list[Trace], ctx.read("traces"))
    instructions = cast(list[Instruction], ctx.read("instructions"))
    done_attempts = sorted(cast(list[Attempt], ctx.read("attempts", owner=TRANSFORMATION)), key=lambda a: a.attempt_no)
    done_tests = cast(list[TestCase], ctx.read("tests", owner=TRANSFORMATION))
    embedder = Embedder(cache_dir(cfg))
    embeddings = embedder.embed([s.text for s in statements])
    selector = make_selector(cfg.selector, statements, instructions, embeddings, cfg.generation.n, cfg.seed,
                             priors={k: (float(v[0]), float(v[1]))
                                     for k, v in ((priors.data.get("priors") if priors else None) or {}).items()},
                             llm_choose=_llm_choose(ctx) if cfg.selector.name == "llm" else None,
                             past=_past_attempts(embedder, past) if cfg.selector.name in USES_PAST else None)
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
              counts=counts, checks=process_checks_of(ctx))
    ctx.check_models("transformation")  # before the stage is marked completed: a re-run resumes it
    attempts_made = int(getattr(selector, "attempts", 0))
    if progress is not None and attempts_made:
        progress(attempts_made, attempts_made)  # the loop stopped before the budget: close the bar
    for table in _XF_TABLES:  # compact the phase's parts into one file per table
        ctx.write(table, ctx.read(table, owner=TRANSFORMATION), owner=TRANSFORMATION)
    ctx.mark_stage(TRANSFORMATION, resume_key or "", "completed")
    attempts = cast(list[Attempt], ctx.read("attempts", owner=TRANSFORMATION))
    return Outcome(tables={"attempts": len(attempts), "transformed_tests": sum(1 for a in attempts if a.test_id)},
                   counts={**counts, "not_applicable": sum(1 for a in attempts if a.outcome == "not_applicable")},
                   data={"stop_reason": selector.stop_reason() or ""})


def _past_attempts(embedder: Embedder, past: list[list[Any]] | None) -> PastAttempts | None:
    """``pooled``'s neighbour evidence from the priors stage's ``past`` rows (adat.adat2.selection_history)."""
    from adat.selection.pooled import PastAttempts

    if not past:
        return None
    return PastAttempts(embedder.embed([str(row[0]) for row in past]), [str(row[1]) for row in past],
                        [bool(row[2]) for row in past], [row[3] for row in past])


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


def _llm_choose(ctx: RunContext) -> Callable[[list[Any]], tuple[str, str] | None]:
    """The LLM selector's chooser: asks the selector role for one untried pair."""
    from adat.contracts.adat2_roles import PROMPT_SELECTOR, SelectorCandidate, SelectorInput, SelectorOutput
    from adat.llm.types import LLMError

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
