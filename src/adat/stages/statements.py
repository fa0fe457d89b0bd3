"""Statements: extraction from the agent's replies, then the grounding check and ranking
(paper §3.1–3.2).

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
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence

from adat.config import RunConfig
from adat.contracts.adat2_roles import (
    PROMPT_EXTRACTOR,
    PROMPT_GROUNDER,
    ExtractedStatement,
    ExtractorInput,
    ExtractorOutput,
    GrounderInput,
    GrounderOutput,
    GroundingCandidate,
    GroundingItem,
)
from adat.llm.types import LLMError, TesterLLM
from adat.records import Statement, Trace
from adat.stages.concurrency import call_or_error, map_in_order
from adat.stages.ids import statement_id
from adat.stages.provenance import Provenance, call_role
from adat.stages.views import trace_view

log = logging.getLogger(__name__)


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
    by_index: dict[int, GroundingItem] = {}
    for item in items:
        by_index.setdefault(item.index, item)  # the first answer for an index wins
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
