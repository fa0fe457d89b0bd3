"""Grounding check and ranking (paper §3.1–3.2).

An LLM grounder judges, in batches (up to ``llm.concurrency`` batches at once), whether each
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
    PROMPT_GROUNDER,
    GrounderInput,
    GrounderOutput,
    GroundingCandidate,
    GroundingItem,
)
from adat.llm.types import LLMError, TesterLLM
from adat.records import Statement
from adat.stages.concurrency import call_or_error, map_in_order
from adat.stages.provenance import call_role

log = logging.getLogger(__name__)


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
    if isinstance(answer, LLMError):
        log.warning("grounding of %d statements failed: %s", len(batch), answer)
        counts["grounder_error"] += len(batch)
        items: list[GroundingItem] = []
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
