"""Conversions between warehouse records (adat.records) and the role views (adat.contracts.adat2_roles).

A role view holds only what the prompt of a role may show; the stages build views from records
before a call and records from the structured answers after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from adat.contracts.adat2_roles import GeneratedTest, SessionSummary, TestView, TraceView, TurnView
from adat.records import TestCase, TestKind, Trace, Turn
from adat.stages.provenance import Provenance

V = TypeVar("V", bound=BaseModel)


def view(cls: type[V], record: object) -> V:
    """The role view ``cls`` of a record: the fields ``cls`` declares, read from the record's
    attributes of the same names (nested records too: a trace's turns become turn views)."""
    return cls.model_validate(record, from_attributes=True)


def turn_views(turns: Sequence[Turn]) -> list[TurnView]:
    """The tester-visible part of turns (role and text; no timestamps)."""
    return [view(TurnView, t) for t in turns]


#: the tool trace shown to the judge and the auditor is bounded: at most this many calls, each
#: argument / result text cut to this many characters (a long session must not crowd out the turns)
TRACE_MAX_CALLS = 40
TRACE_MAX_CHARS = 160


def tool_trace_text(turns: Sequence[Turn]) -> str:
    """The agent's reported tool calls, one line each, by the user turn they answered
    (``turn 2: name({...}) -> {...}`` / ``-> error: ...``); "" when none was reported."""
    lines: list[str] = []
    user_turn = 0
    for turn in turns:
        if turn.role == "user":
            user_turn += 1
            continue
        for call in turn.tool_calls:
            outcome = f"error: {call.error}" if call.error is not None else (call.result_json or "(no result reported)")
            lines.append(f"turn {user_turn}: {call.name}({_cut(call.arguments_json)}) -> {_cut(outcome)}")
    if len(lines) > TRACE_MAX_CALLS:
        lines = lines[:TRACE_MAX_CALLS] + [f"... {len(lines) - TRACE_MAX_CALLS} more calls not shown"]
    return "\n".join(lines)


def tool_trace_fields(turns: Sequence[Turn], use_tool_trace: bool) -> dict[str, bool | str]:
    """The judge's and the auditor's ``tool_trace_shown`` / ``tool_trace`` inputs: the trace when
    ``use_tool_trace`` (``judge.use_tool_trace``) and the target reported any call; else nothing,
    so a text-only prompt renders exactly as before the trace existed."""
    text = tool_trace_text(turns) if use_tool_trace else ""
    return {"tool_trace_shown": bool(text), "tool_trace": text}


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TRACE_MAX_CHARS else text[: TRACE_MAX_CHARS - 1] + "…"


def trace_view(trace: Trace) -> TraceView:
    return view(TraceView, trace)


def session_summary(trace: Trace) -> SessionSummary:
    """What the planner is told about an earlier discovery session."""
    last_reply = next((t.text for t in reversed(trace.turns) if t.role == "agent"), "")
    return SessionSummary(objective=trace.objective, strategy=trace.strategy, ended_by=trace.ended_by,
                          last_agent_reply=last_reply)


def test_view(test: TestCase) -> TestView:
    return view(TestView, test)


def test_from_generated(generated: GeneratedTest, *, test_id: str, run_id: str, kind: TestKind,
                        turn_limit: int, provenance: str, produced: Provenance,
                        statement_id: str | None = None, instruction_id: str | None = None) -> TestCase:
    """A TestCase row from the generator's structured test (its fields are the test's own)."""
    return TestCase(**generated.model_dump(), test_id=test_id, run_id=run_id, kind=kind,
                    statement_id=statement_id, instruction_id=instruction_id, turn_limit=turn_limit,
                    provenance=provenance, **produced.fields())


def supporting_context(trace: Trace, supporting_turn: int) -> list[TurnView]:
    """The discovery conversation up to and including the supporting reply."""
    return turn_views(trace.turns[: supporting_turn + 1])
