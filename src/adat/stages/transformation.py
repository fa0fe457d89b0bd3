"""Test transformation: the attempt loop with adaptive pair selection (paper §3.3–3.4, DESIGN §4.5).

Per attempt the selector picks a statement–instruction pair; the generator gets the statement,
its supporting reply, the instruction, the statement's plain test, all discovery traces and the
most recent tests, and writes a transformed test or reports the pair not applicable. A written
test is executed and judged at once, and the selector learns from the applicability and the
verdict before the next attempt. An attempt ends ``applicable``, ``not_applicable`` or
``error`` (the generator failed); an error is reported to the selector as such and teaches it
nothing (DESIGN §5).

Both sides of a boundary (the paper's first item of future work): the generator is told which
sides the statement's tests cover so far and, when they cover one, to aim for the other
(``aim_side``); and a selector that scores instructions is handed a pair weight
(``selector.both_sides``) that favours instructions able to move the request to that side.

The stage's step (:func:`transformation_step`) persists every attempt as soon as it ends and
resumes after a crash. Resuming: ``done_attempts`` (the Attempt rows a crashed run already wrote) are replayed into the
selector first — it is asked for its next pair, which must be the recorded one (selectors are
seeded, so the same outcomes give the same choices), and told the recorded outcome. The loop
then continues with the next attempt number.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from adat.config import RunConfig, cache_dir
from adat.contracts.adat2_roles import (
    PROMPT_TRANSFORM,
    InstructionView,
    StatementView,
    TransformInput,
    TransformOutput,
)
from adat.engine.context import RunContext, StepResult
from adat.engine.stage_runner import Outcome
from adat.errors import UserError
from adat.llm.types import LLMError, TesterLLM
from adat.records import (
    Attempt,
    Execution,
    Instruction,
    ProcessAssertion,
    Statement,
    TestCase,
    Trace,
    Verdict,
)
from adat.stages.execution import execute_test
from adat.stages.ids import transformed_test_id
from adat.stages.judging import judge_execution
from adat.stages.process_checks import checks_for, process_checks_of
from adat.stages.provenance import call_role
from adat.stages.statements import ranked_statements, top_statements
from adat.stages.views import test_from_generated, test_view, trace_view, view
from adat.targets.base import Target

if TYPE_CHECKING:  # adat.selection pulls in scipy; executing or judging alone should not pay for it
    from adat.embeddings import Embedder
    from adat.selection.pair import Pair, PairSelector
    from adat.selection.pooled import PastAttempts

log = logging.getLogger(__name__)

#: aim side -> the instruction factors that can move a request there: withholding identity, a
#: late request or a declined confirmation turn a request down; another value, state or
#: payment method can move it either way.
MOVES_TO: dict[str, frozenset[str]] = {
    "denied": frozenset({"value", "state", "payment", "identity", "timing", "confirmation"}),
    "allowed": frozenset({"value", "state", "payment"}),
}

ExecuteFn = Callable[[TestCase], Execution]
JudgeFn = Callable[[TestCase, Execution], Verdict]
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class AttemptOutcome:
    """Everything one attempt produced; handed to ``on_attempt`` so a caller can persist it at once."""

    attempt: Attempt
    test: TestCase | None = None
    execution: Execution | None = None
    verdict: Verdict | None = None


def transform(cfg: RunConfig, client: TesterLLM, selector: PairSelector, target: Target,
              statements: Sequence[Statement], plain_tests: Sequence[TestCase], traces: Sequence[Trace],
              instructions: Sequence[Instruction], run_id: str, *,
              judge_fn: JudgeFn | None = None, execute_fn: ExecuteFn | None = None,
              progress: Progress | None = None, done_attempts: Sequence[Attempt] = (),
              done_tests: Sequence[TestCase] = (), on_attempt: Callable[[AttemptOutcome], None] | None = None,
              counts: Counter[str] | None = None, checks: Mapping[str, Sequence[ProcessAssertion]] | None = None,
              ) -> list[AttemptOutcome]:
    """Run attempts until the selector stops; returns what the attempts made in this call produced.

    ``execute_fn(test)`` / ``judge_fn(test, execution)`` default to :func:`execute_test` on
    ``target`` and :func:`judge_execution` with ``client``. ``done_tests`` are the transformed
    tests of ``done_attempts`` (they count as recent tests for the generator). ``on_attempt`` is
    called after every attempt. ``progress(attempt_no, budget)``. ``counts`` gets
    ``generator_error``, ``not_applicable`` and ``tests``. ``checks``: the process checks of each
    statement id, run over the executions of its tests by the default judge.
    """
    counts = counts if counts is not None else Counter()
    run_execute: ExecuteFn = execute_fn or (lambda test: execute_test(target, test, run_id))
    by_statement = checks or {}
    run_judge: JudgeFn = judge_fn or (lambda test, ex: judge_execution(
        cfg, client, test, ex, run_id, checks=checks_for(by_statement, test.statement_id)))
    context = _Context(cfg, statements, plain_tests, traces, instructions)
    prefer = getattr(selector, "prefer", None)  # the both-sides hook (selectors that score instructions)
    if prefer is not None and cfg.selector.both_sides > 0:
        prefer(context.side_weight)
    count_repeats = getattr(selector, "count_repeats", None)  # near-duplicate outcomes of an instruction
    if count_repeats is not None:
        count_repeats(context.repeats)
    # Replay with the hook set and the context growing test by test, exactly as the choices were
    # made the first time (the hook's weights depend on the tests written so far).
    done_by_id = {t.test_id: t for t in done_tests}
    replay_attempts(selector, done_attempts,
                    after=lambda a: context.add(done_by_id[a.test_id]) if a.test_id in done_by_id else None)
    budget = min(cfg.selector.max_attempts_cap, cfg.selector.attempts_per_test * cfg.generation.n)
    outcomes: list[AttemptOutcome] = []
    while (pair := selector.next_pair()) is not None:
        outcome = _attempt(cfg, client, selector.name, pair, context, run_id, run_execute, run_judge, counts,
                           target_id=str(getattr(target, "agent_id", "")))
        _report(selector, pair, outcome.attempt)
        outcomes.append(outcome)
        if outcome.test is not None:
            context.add(outcome.test)
        if on_attempt is not None:
            on_attempt(outcome)
        if progress is not None:
            progress(pair.attempt_no, budget)
    log.info("transformation stopped (%s) after %d attempts in this call", selector.stop_reason(),
             len(outcomes))
    return outcomes


def replay_attempts(selector: PairSelector, done_attempts: Sequence[Attempt], *,
                    after: Callable[[Attempt], object] | None = None) -> None:
    """Bring a fresh selector to the state after ``done_attempts`` (see the module docstring).

    ``after(attempt)`` is called once each replayed attempt is reported (the stage adds its test
    to the generator's context there)."""
    for done in sorted(done_attempts, key=lambda a: a.attempt_no):
        pair = selector.next_pair()
        chosen = (pair.attempt_no, pair.statement_id, pair.instruction_id) if pair is not None else None
        if chosen != (done.attempt_no, done.statement_id, done.instruction_id):
            raise UserError(
                f"cannot resume: attempt {done.attempt_no} was ({done.statement_id}, {done.instruction_id}) "
                f"but the selector now chooses {chosen}", field="selector",
                fix="resume with the run's original config and inputs, or start a new run id")
        assert pair is not None
        _report(selector, pair, done)
        if after is not None:
            after(done)


def _report(selector: PairSelector, pair: Pair, attempt: Attempt) -> None:
    """Tell the selector what an attempt teaches: nothing for an error; no reward without one.

    A test whose execution failed (the target errored) is applicable, but its verdict says
    nothing about the instruction, so the attempt carries ``reward = None`` and μ is left alone.
    A declined pair passes the kind of its reason (the ``statement:`` / ``instruction:`` tag of
    the stored reason text, so a resumed run replays the same evidence).
    """
    from adat.contracts.adat2_roles import reason_kind

    learned_verdict = attempt.verdict if attempt.applicable and attempt.reward is not None else None
    declined = attempt.outcome == "not_applicable"
    selector.update(pair, applicable=attempt.applicable, verdict=learned_verdict,
                    error=attempt.outcome == "error", reason=reason_kind(attempt.reason) if declined else None)


class _Context:
    """What the generator is shown besides the pair: lookups and the most recent tests."""

    def __init__(self, cfg: RunConfig, statements: Sequence[Statement], plain_tests: Sequence[TestCase],
                 traces: Sequence[Trace], instructions: Sequence[Instruction]) -> None:
        self.statements = {s.statement_id: s for s in statements}
        self.instructions = {i.instruction_id: i for i in instructions}
        self.plain = {t.statement_id: t for t in plain_tests if t.statement_id}
        self.traces = [trace_view(t) for t in traces if t.kind == "discovery"]
        # "the tests most recently written in the run": plain tests were written first (a resumed
        # run's transformed tests are added as its attempts are replayed).
        self.recent: list[TestCase] = list(plain_tests)
        self.keep = cfg.generation.recent_tests
        self.both_sides = cfg.selector.both_sides
        # Both sides of a boundary: the sides each statement's tests cover so far in the run.
        self.sides: dict[str, set[str]] = {}
        # Per instruction, the outcomes its transformed tests expected, and how many repeated one.
        self.outcomes: dict[str, set[tuple[str, ...]]] = {}
        self.repeated: Counter[str] = Counter()
        for test in self.recent:
            self._note(test)

    def add(self, test: TestCase) -> None:
        self.recent.append(test)
        self._note(test)

    def _note(self, test: TestCase) -> None:
        if test.statement_id and test.expected_side:
            self.sides.setdefault(test.statement_id, set()).add(test.expected_side)
        if test.instruction_id:
            outcome = (test.expected_side or "", *test.success_criteria)
            seen = self.outcomes.setdefault(test.instruction_id, set())
            self.repeated[test.instruction_id] += outcome in seen
            seen.add(outcome)

    def repeats(self, instruction_id: str) -> int:
        """How many of the instruction's tests expected an outcome one of its earlier tests
        expected: the same change on statement after statement that ends in the same reply (every
        request refused for want of identification) reaches one boundary, again and again."""
        return self.repeated[instruction_id]

    def covered_sides(self, statement_id: str) -> list[str]:
        return sorted(self.sides.get(statement_id, set()))

    def side_weight(self, statement_id: str, instruction_id: str) -> float:
        """1 + ``selector.both_sides`` for a pair whose instruction's factor can move the statement's
        request to the side its tests lack (:data:`MOVES_TO`), else 1."""
        aim = self.aim_side(statement_id)
        instruction = self.instructions.get(instruction_id)
        if aim is None or instruction is None or instruction.factor not in MOVES_TO[aim]:
            return 1.0
        return 1.0 + self.both_sides

    def aim_side(self, statement_id: str) -> str | None:
        """The side the statement's tests do not cover yet, when they cover exactly one."""
        covered = self.sides.get(statement_id, set())
        return ({"allowed", "denied"} - covered).pop() if len(covered) == 1 else None

    def recent_views(self) -> list[Any]:
        return [test_view(t) for t in self.recent[-self.keep:]] if self.keep else []


def _attempt(cfg: RunConfig, client: TesterLLM, selector_name: str, pair: Pair, ctx: _Context, run_id: str,
             run_execute: ExecuteFn, run_judge: JudgeFn, counts: Counter[str], *, target_id: str) -> AttemptOutcome:
    from adat.selection.posteriors import reward_of  # the selector's reward scale (1 / 0.5 / 0)

    statement = ctx.statements[pair.statement_id]
    instruction = ctx.instructions[pair.instruction_id]
    plain = ctx.plain.get(statement.statement_id)
    row: dict[str, Any] = {"run_id": run_id, "attempt_no": pair.attempt_no, "statement_id": pair.statement_id,
                           "instruction_id": pair.instruction_id, "selector": selector_name,
                           "block": pair.block, "pass_no": pair.pass_no, "scores_json": pair.scores_json(),
                           "generator": str(cfg.models.generator), "target_id": target_id}
    transform_in = TransformInput(
        statement=view(StatementView, statement), supporting_reply=statement.supporting_reply,
        instruction=view(InstructionView, instruction),
        plain_test=test_view(plain) if plain is not None else None,
        discovery_traces=ctx.traces, recent_tests=ctx.recent_views(), tester_facts=list(cfg.tester_facts),
        turn_limit=cfg.generation.turn_limit, covered_sides=ctx.covered_sides(statement.statement_id),
        aim_side=ctx.aim_side(statement.statement_id))
    try:
        out, produced = call_role(client, "generator", PROMPT_TRANSFORM, transform_in, TransformOutput)
    except LLMError as exc:
        log.warning("attempt %d: generator failed: %s", pair.attempt_no, exc)
        counts["generator_error"] += 1
        return AttemptOutcome(Attempt(**row, applicable=False, outcome="error", reason=f"generator error: {exc}"))
    if not out.applicable or out.test is None:
        counts["not_applicable"] += 1
        reason = out.reason if not out.applicable else f"applicable but no test was written ({out.reason})"
        return AttemptOutcome(Attempt(**row, applicable=False, outcome="not_applicable", reason=reason))
    test = test_from_generated(
        out.test, test_id=transformed_test_id(run_id, statement.statement_id, instruction.instruction_id),
        run_id=run_id, kind="transformed", turn_limit=cfg.generation.turn_limit,
        statement_id=statement.statement_id, instruction_id=instruction.instruction_id, produced=produced,
        provenance=f"statement {statement.statement_id} transformed by {instruction.instruction_id} "
                   f"({instruction.title}): {out.reason}")
    execution = run_execute(test)
    verdict = run_judge(test, execution)
    counts["tests"] += 1
    # A failed execution (target error) still wrote a test, but its verdict is no evidence.
    reward = reward_of(verdict.verdict) if execution.error is None else None
    return AttemptOutcome(Attempt(**row, applicable=True, outcome="applicable", reason=out.reason,
                                  test_id=test.test_id, verdict=verdict.verdict, reward=reward),
                          test=test, execution=execution, verdict=verdict)


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
    from adat.embeddings import Embedder
    from adat.selection import make_selector
    from adat.stages.selection_priors import USES_PAST

    cfg, run_id, resume_key = ctx.cfg, ctx.run_id, ctx.key
    history = priors.data if priors else {}
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
                                     for k, v in (history.get("priors") or {}).items()},
                             llm_choose=_llm_choose(ctx) if cfg.selector.name == "llm" else None,
                             past=(_past_attempts(embedder, history.get("past"))
                                   if cfg.selector.name in USES_PAST else None))
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
    """``pooled``'s neighbour evidence from the priors stage's ``past`` rows (:mod:`adat.stages.selection_priors`)."""
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
    first: dict[Any, Any] = {}
    for row in rows:
        first.setdefault(key(row), row)
    return list(first.values())


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
