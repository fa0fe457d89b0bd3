"""Extraction: one call per trace, supporting_turn validation, dedupe, global extraction order."""

from __future__ import annotations

from collections import Counter

from adat.llm.types import LLMError
from adat.records import Trace
from adat.stages.statements import extract_statements
from tests.test_stages.conftest import RUN, Roles, make_trace


def item(text: str, turn: int) -> dict[str, object]:
    return {"text": text, "condition": f"c: {text}", "behavior": f"b: {text}", "supporting_turn": turn}


def test_supporting_turn_is_validated_and_order_is_global(roles: Roles) -> None:
    t1 = make_trace("tr-1", "cancel #1", "Only pending orders can be cancelled.", "ok", "Anything else?")
    t2 = make_trace("tr-2", "return #2", "Returns need a delivered order.")
    extractor = roles.script("extractor", [
        {"statements": [item("A", 1), item("user turn", 0), item("out of range", 9), item("B", 3)]},
        {"statements": [item("C", 1), item("negative", -1)]},
    ])
    counts: Counter[str] = Counter()
    got = extract_statements(roles.cfg, roles.client(), [t1, t2], RUN, counts=counts)

    assert [s.text for s in got] == ["A", "B", "C"]
    assert [s.extraction_order for s in got] == [0, 1, 2]
    assert [(s.supporting_trace_id, s.supporting_turn) for s in got] == [("tr-1", 1), ("tr-1", 3), ("tr-2", 1)]
    assert got[0].supporting_reply == "Only pending orders can be cancelled."
    assert got[2].condition == "c: C" and got[2].behavior == "b: C"
    assert counts["invalid_supporting_turn"] == 3
    assert len(extractor.requests) == 2
    assert extractor.requests[0].variables["trace"]["turns"][1]["role"] == "agent"
    assert got[0].produced_by == "fake/extractor" and got[0].prompt_id == "extractor"
    assert len({s.statement_id for s in got}) == 3


def test_exact_duplicates_are_dropped_keeping_the_first(roles: Roles) -> None:
    t1 = make_trace("tr-1", "q", "Reply one.")
    t2 = make_trace("tr-2", "q", "Reply two.")
    roles.script("extractor", [{"statements": [item("Orders  must be pending.", 1)]},
                               {"statements": [item("orders must be pending.", 1), item("Other.", 1)]}])
    counts: Counter[str] = Counter()
    got = extract_statements(roles.cfg, roles.client(), [t1, t2], RUN, counts=counts)
    assert [(s.text, s.supporting_trace_id) for s in got] == [("Orders  must be pending.", "tr-1"),
                                                             ("Other.", "tr-2")]
    assert [s.extraction_order for s in got] == [0, 1]
    assert counts["duplicate"] == 1


def test_failed_call_skips_the_trace_and_traces_without_replies_cost_nothing(roles: Roles) -> None:
    empty = Trace(trace_id="tr-0", run_id=RUN, kind="discovery", ended_by="error")
    t1 = make_trace("tr-1", "q", "Reply one.")
    t2 = make_trace("tr-2", "q", "Reply two.")
    extractor = roles.script("extractor", [LLMError("down"), {"statements": [item("X", 1)]}])
    counts: Counter[str] = Counter()
    got = extract_statements(roles.cfg, roles.client(), [empty, t1, t2], RUN, counts=counts)
    assert [s.supporting_trace_id for s in got] == ["tr-2"]
    assert counts["extractor_error"] == 1
    assert len(extractor.requests) == 2
