"""A statement's life as three stages: extraction from the agent's replies, the grounding check
and ranking (paper §3.1–3.2), then one plain test per chosen statement (§3.1).

Each stage is a step (``fn(ctx) -> Outcome``, declared in :mod:`adat.engine.stage_registry`)
that reads its rows through ``ctx``, calls the plain function of the stage over records and
writes the result; the functions touch no file and can be called alone.

Extraction makes one extractor call per trace, up to ``llm.concurrency`` at once. A statement is
kept only when its ``supporting_turn`` points at an agent reply of that trace; exact duplicates
(same text up to case and whitespace) are dropped, keeping the first. ``extraction_order``
numbers the kept statements across all traces and is the grounding tie-break.

An LLM grounder then judges, in batches (up to ``llm.concurrency`` batches at once), whether each
statement is grounded in its supporting reply and how confident it is that an agent must behave
so. Grounded statements are ranked by that confidence (descending; ties keep extraction order);
ungrounded ones are kept with ``rank=None`` so the warehouse shows what was removed.

One refinement of the paper's ranking: a statement whose behaviour repeats, word for word, the
behaviour of a better-ranked one (the same check heard under another request: "the agent needs to
verify the user's identity" before a cancellation, a return, an exchange ...) ranks after the
first statement of every distinct behaviour, so the top-n plain tests spread over distinct
behaviours before any is tested twice.

Plain generation chooses n grounded statements, covering every rule-like statement cluster
before a second test on a covered one (:func:`top_statements`).

The generator gets the statement, its supporting reply and the discovery conversation up to that
reply, and writes a test for the side of the boundary the statement describes. The attempts are
independent, so up to ``llm.concurrency`` run at once; tests and failures keep rank order.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from adat.config import RunConfig
from adat.contracts.adat2_roles import (
    PROMPT_EXTRACTOR,
    PROMPT_GROUNDER,
    PROMPT_PLAIN,
    ExtractedStatement,
    ExtractorInput,
    ExtractorOutput,
    GeneratedTest,
    GrounderInput,
    GrounderOutput,
    GroundingCandidate,
    GroundingItem,
    PlainInput,
    StatementView,
)
from adat.engine.context import RunContext
from adat.engine.stage_runner import Outcome
from adat.llm.types import LLMError, TesterLLM
from adat.records import Statement, TestCase, Trace
from adat.stages.concurrency import call_or_error, map_in_order
from adat.stages.ids import plain_test_id, statement_id
from adat.stages.provenance import Provenance, call_role
from adat.stages.views import supporting_context, test_from_generated, trace_view, view

log = logging.getLogger(__name__)

#: why a discovery may state no rule when the config hands the tester no test accounts
NO_FACTS_HINT = ("the config lists no tester_facts, so the tester had no account to identify with "
                 "(fix: list test accounts, ids and their state under tester_facts)")


def extraction_step(ctx: RunContext) -> Outcome:
    """Statements (condition + behaviour) from the agent replies of the discovery traces."""
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
    counts: Counter[str] = Counter()
    grounded = ground_statements(ctx.cfg, ctx.client, cast(list[Statement], ctx.read("statements")), counts=counts)
    ctx.write("ranked_statements", grounded)
    counts["grounded"] = sum(1 for s in grounded if s.grounded)
    return Outcome(counts=counts)


def ranked_statements(ctx: RunContext) -> list[Statement]:
    """The run's statements as grounding left them (grounded, confidence, rank)."""
    return cast(list[Statement], ctx.read("ranked_statements"))


def plain_generation_step(ctx: RunContext) -> Outcome:
    """One plain test per top-n grounded statement."""
    traces = cast(list[Trace], ctx.read("traces"))
    tests, failures = generate_plain_tests(ctx.cfg, ctx.client, ranked_statements(ctx), traces, ctx.run_id)
    ctx.write("tests", tests, owner="plain")
    ranked = ranked_statements(ctx)
    ctx.require("plain tests", len(tests), f"{sum(1 for s in ranked if s.grounded)} grounded of {len(ranked)} "
                f"statements ({len(failures)} generator failures)")
    return Outcome(counts={"plain_tests": len(tests), "generator_failures": len(failures)})


def extract_statements(cfg: RunConfig, client: TesterLLM, traces: Sequence[Trace], run_id: str, *,
                       counts: Counter[str] | None = None) -> list[Statement]:
    """Statements from the discovery traces, in extraction order (ungrounded, unranked).

    ``counts`` (optional) is incremented with ``extractor_error`` (a trace whose call failed),
    ``invalid_supporting_turn`` and ``duplicate`` (statements dropped).
    """
    counts = counts if counts is not None else Counter()
    to_extract = [t for t in traces if t.kind == "discovery" and any(turn.role == "agent" for turn in t.turns)]

    def extract(trace: Trace) -> tuple[ExtractorOutput, Provenance]:
        return call_role(client, "extractor", PROMPT_EXTRACTOR, ExtractorInput(trace=trace_view(trace)),
                         ExtractorOutput)

    answers = map_in_order(call_or_error(extract), to_extract, cfg.llm.concurrency, name="adat-extract")
    seen: set[str] = set()
    statements: list[Statement] = []
    # In trace order, so dedupe keeps the same first statement and extraction_order is the
    # sequential one however the calls interleaved.
    for trace, answer in zip(to_extract, answers, strict=True):
        if isinstance(answer, LLMError):
            log.warning("extraction of %s failed: %s", trace.trace_id, answer)
            counts["extractor_error"] += 1
            continue
        out, produced = answer
        for item in out.statements:
            if not _supported(item, trace):
                counts["invalid_supporting_turn"] += 1
                continue
            key = " ".join(item.text.split()).casefold()
            if not key or key in seen:
                counts["duplicate"] += 1
                continue
            seen.add(key)
            statements.append(Statement(
                statement_id=statement_id(run_id, trace.trace_id, item.text), run_id=run_id,
                text=item.text.strip(), condition=item.condition.strip(), behavior=item.behavior.strip(),
                supporting_trace_id=trace.trace_id, supporting_turn=item.supporting_turn,
                supporting_reply=trace.turns[item.supporting_turn].text,
                extraction_order=len(statements), **produced.fields(),
            ))
    return statements


def _supported(item: ExtractedStatement, trace: Trace) -> bool:
    """The statement names an agent reply of this trace as its support."""
    idx = item.supporting_turn
    return 0 <= idx < len(trace.turns) and trace.turns[idx].role == "agent"


def ground_statements(cfg: RunConfig, client: TesterLLM, statements: Sequence[Statement], *,
                      counts: Counter[str] | None = None) -> list[Statement]:
    """Copies of ``statements`` with ``grounded``, ``confidence`` and ``rank`` set.

    Returned in rank order, then the ungrounded ones in extraction order. A statement the grounder
    does not answer for (missing from its output, or its batch's call failed for good) counts as
    ungrounded with confidence 0 — a statement nobody checked must not drive test generation.
    ``counts`` gets ``grounder_error`` (statements of failed batches) and ``grounder_missing``.
    """
    counts = counts if counts is not None else Counter()
    ordered = sorted(statements, key=lambda s: s.extraction_order)
    size = cfg.statements.grounding_batch_size
    batches = [ordered[start:start + size] for start in range(0, len(ordered), size)]
    answers = map_in_order(call_or_error(lambda batch: _ask_grounder(client, batch)), batches,
                           cfg.llm.concurrency, name="adat-ground")
    judged: list[Statement] = []
    for batch, answer in zip(batches, answers, strict=True):
        judged.extend(_apply_answers(batch, answer, counts))
    grounded = distinct_first(sorted((s for s in judged if s.grounded),
                                     key=lambda s: (-s.confidence, s.extraction_order)))
    for rank, statement in enumerate(grounded, start=1):
        statement.rank = rank
    return grounded + [s for s in judged if not s.grounded]


def distinct_first(ranked: Sequence[Statement]) -> list[Statement]:
    """``ranked`` with each statement whose behaviour (case and spacing ignored) a better-ranked
    statement already has moved after the first statement of every behaviour, order kept."""
    seen: set[str] = set()
    first: list[Statement] = []
    repeats: list[Statement] = []
    for statement in ranked:
        behaviour = " ".join(statement.behavior.split()).casefold()
        (repeats if behaviour and behaviour in seen else first).append(statement)
        seen.add(behaviour)
    return first + repeats


def _ask_grounder(client: TesterLLM, batch: Sequence[Statement]) -> list[GroundingItem]:
    """The grounder's answers for one batch (runs in a pool thread: no shared state touched)."""
    candidates = [GroundingCandidate(index=i, text=s.text, condition=s.condition, behavior=s.behavior,
                                     supporting_reply=s.supporting_reply) for i, s in enumerate(batch)]
    out, _ = call_role(client, "grounder", PROMPT_GROUNDER, GrounderInput(statements=candidates), GrounderOutput)
    return out.items


def _apply_answers(batch: Sequence[Statement], answer: list[GroundingItem] | LLMError,
                   counts: Counter[str]) -> list[Statement]:
    """Copies of ``batch`` judged by ``answer`` (a failed call leaves every statement ungrounded)."""
    items: list[GroundingItem] = []
    if isinstance(answer, LLMError):
        log.warning("grounding of %d statements failed: %s", len(batch), answer)
        counts["grounder_error"] += len(batch)
    else:
        items = answer
    by_index = {item.index: item for item in reversed(items)}  # the first answer for an index wins
    result = []
    for i, statement in enumerate(batch):
        found = by_index.get(i)
        if found is None and items:
            counts["grounder_missing"] += 1
        grounded = found is not None and found.grounded
        confidence = found.confidence if found is not None else 0.0
        result.append(statement.model_copy(update={"grounded": grounded, "confidence": confidence,
                                                   "rank": None}))
    return result

@dataclass(frozen=True)
class GenerationFailure:
    """A statement for which the generator wrote no test, and why."""

    statement_id: str
    reason: str


#: words that make a statement rule-like: it states a condition the agent's decision depends on
_RULE_WORDS = re.compile(r"\b(only|must|unless|cannot|can't|not|never|require[sd]?|needs?|allowed)\b", re.I)
_VALUES = re.compile(r"'[^']*'|\"[^\"]*\"|#?\b\w*\d\w*\b")


def cluster_key(statement: Statement) -> str:
    """The statement's cluster: its condition without the quoted values, ids and numbers it
    names, so that statements of one rule on different entities or values share a cluster."""
    return " ".join(_VALUES.sub(" ", statement.condition.lower()).split())


def is_rule_like(statement: Statement) -> bool:
    """Whether the statement states a rule (a condition word: only, must, unless, not, ...)."""
    return bool(_RULE_WORDS.search(statement.text))


def top_statements(statements: Sequence[Statement], n: int) -> list[Statement]:
    """``n`` grounded statements, in rank order, chosen to cover every rule-like cluster
    (:func:`cluster_key`) before a second test on a covered one (issue 28 item 4): the best-ranked
    statement of each rule-like cluster first (in rank order while they fit), then the rest by
    rank. A statement ranked below the budget that is the only one on its rule still gets a test."""
    ranked = sorted((s for s in statements if s.grounded and s.rank is not None), key=lambda s: s.rank or 0)
    if len(ranked) <= n:
        return ranked
    firsts: dict[str, Statement] = {}
    for s in ranked:
        if is_rule_like(s):
            firsts.setdefault(cluster_key(s), s)
    chosen = {s.statement_id for s in list(firsts.values())[:n]}
    for s in ranked:
        if len(chosen) >= n:
            break
        chosen.add(s.statement_id)
    return [s for s in ranked if s.statement_id in chosen]


def generate_plain_tests(cfg: RunConfig, client: TesterLLM, statements: Sequence[Statement],
                         traces: Sequence[Trace], run_id: str) -> tuple[list[TestCase], list[GenerationFailure]]:
    """At most one plain test for each of the top ``cfg.generation.n`` statements, in rank order.

    A statement whose generator call fails gets a :class:`GenerationFailure` (failures also in
    rank order) instead of a test.
    """
    by_trace = {t.trace_id: t for t in traces}
    chosen = top_statements(statements, cfg.generation.n)

    def generate(statement: Statement) -> tuple[GeneratedTest, Provenance]:
        trace = by_trace.get(statement.supporting_trace_id)
        context = supporting_context(trace, statement.supporting_turn) if trace is not None else []
        plain_in = PlainInput(statement=view(StatementView, statement),
                              supporting_reply=statement.supporting_reply,
                              supporting_context=context, tester_facts=list(cfg.tester_facts),
                              turn_limit=cfg.generation.turn_limit)
        return call_role(client, "generator", PROMPT_PLAIN, plain_in, GeneratedTest)

    answers = map_in_order(call_or_error(generate), chosen, cfg.llm.concurrency, name="adat-plain")
    tests: list[TestCase] = []
    failures: list[GenerationFailure] = []
    for statement, answer in zip(chosen, answers, strict=True):
        if isinstance(answer, LLMError):
            log.warning("plain test for %s failed: %s", statement.statement_id, answer)
            failures.append(GenerationFailure(statement.statement_id, f"generator error: {answer}"))
            continue
        generated, produced = answer
        tests.append(test_from_generated(
            generated, test_id=plain_test_id(run_id, statement.statement_id), run_id=run_id, kind="plain",
            turn_limit=cfg.generation.turn_limit, statement_id=statement.statement_id, produced=produced,
            provenance=f"plain test of statement {statement.statement_id}: {statement.text}",
        ))
    return tests, failures
