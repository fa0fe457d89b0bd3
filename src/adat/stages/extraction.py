"""Extraction: statements from the agent's replies in the discovery traces (paper §3.2).

One extractor call per trace, up to ``llm.concurrency`` at once. A statement is kept only when
its ``supporting_turn`` points at an agent reply of that trace; exact duplicates (same text up to
case and whitespace) are dropped, keeping the first. ``extraction_order`` numbers the kept
statements across all traces and is the grounding tie-break.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence

from adat.config import RunConfig
from adat.contracts.adat2_roles import PROMPT_EXTRACTOR, ExtractedStatement, ExtractorInput, ExtractorOutput
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
