"""Conversions between warehouse records (adat.records) and the role views (adat.contracts.adat2_roles).

A role view holds only what the prompt of a role may show; the stages build views from records
before a call and records from the structured answers after it.
"""

from __future__ import annotations

from collections.abc import Sequence

from adat.contracts.adat2_roles import (
    GeneratedTest,
    InstructionView,
    SessionSummary,
    StatementView,
    TestView,
    TraceView,
    TurnView,
)
from adat.records import Instruction, Statement, TestCase, TestKind, Trace, Turn
from adat.stages.provenance import Provenance


def turn_views(turns: Sequence[Turn]) -> list[TurnView]:
    """The tester-visible part of turns (role and text; no timestamps)."""
    return [TurnView(role=t.role, text=t.text) for t in turns]


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
    return TraceView(trace_id=trace.trace_id, objective=trace.objective, strategy=trace.strategy,
                     turns=turn_views(trace.turns))


def session_summary(trace: Trace) -> SessionSummary:
    """What the planner is told about an earlier discovery session."""
    last_reply = next((t.text for t in reversed(trace.turns) if t.role == "agent"), "")
    return SessionSummary(objective=trace.objective, strategy=trace.strategy, ended_by=trace.ended_by,
                          last_agent_reply=last_reply)


def statement_view(statement: Statement) -> StatementView:
    return StatementView(statement_id=statement.statement_id, text=statement.text,
                         condition=statement.condition, behavior=statement.behavior)


def instruction_view(instruction: Instruction) -> InstructionView:
    return InstructionView(instruction_id=instruction.instruction_id, title=instruction.title,
                           text=instruction.text, factor=instruction.factor,
                           applicability=instruction.applicability)


def test_view(test: TestCase) -> TestView:
    return TestView(test_id=test.test_id, kind=test.kind, goal=test.goal, step_hints=list(test.step_hints),
                    success_criteria=list(test.success_criteria),
                    failure_criteria=list(test.failure_criteria))


def test_from_generated(generated: GeneratedTest, *, test_id: str, run_id: str, kind: TestKind,
                        turn_limit: int, provenance: str, produced: Provenance,
                        statement_id: str | None = None, instruction_id: str | None = None) -> TestCase:
    """A TestCase row from the generator's structured test."""
    return TestCase(
        test_id=test_id, run_id=run_id, kind=kind, statement_id=statement_id,
        instruction_id=instruction_id, goal=generated.goal, step_hints=list(generated.step_hints),
        success_criteria=list(generated.success_criteria),
        failure_criteria=list(generated.failure_criteria), turn_limit=turn_limit,
        expected_side=generated.expected_side, assumed_facts=list(generated.assumed_facts),
        provenance=provenance, **produced.fields(),
    )


def supporting_context(trace: Trace, supporting_turn: int) -> list[TurnView]:
    """The discovery conversation up to and including the supporting reply."""
    return turn_views(trace.turns[: supporting_turn + 1])
