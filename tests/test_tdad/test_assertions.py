"""Every assertion kind: a passing, a failing and (where it applies) an unobservable case."""

from __future__ import annotations

import json

import pytest

from adat.spec_records import AgentToolCall, SpecAssertion, SpecTurn
from adat.trace_assertions import evaluate


def _turn(calls: list[tuple[str, str]] | None, payload: dict | None = None, reply: str = "",
          has_respond: bool = True) -> SpecTurn:
    observed = None if calls is None else [AgentToolCall.observed(n, "{}", o) for n, o in calls]
    return SpecTurn(user="u", reply=reply or (payload or {}).get("user_message", ""),
                    respond_json=[json.dumps(payload)] if payload else [], tool_calls=observed,
                    has_respond=has_respond and calls is not None)


OK = '{"ok": 1}'
ASK = _turn([("lookup", OK)], {"decision": "ASK", "user_message": "Please confirm.", "meta": {"n": 2}})
DO = _turn([("lookup", '{"valid": false}'), ("act", OK)], {"decision": "DONE", "user_message": "Done, ref 555-0199."})
RUN = [ASK, DO]


@pytest.mark.parametrize(("kwargs", "turns", "outcome"), [
    (dict(kind="tool_called", tools=["act"]), RUN, "pass"),
    (dict(kind="tool_called", tools=["other"]), RUN, "fail"),
    (dict(kind="tool_called", tools=["act"]), [_turn(None, {"decision": "DONE"})], "not_observable"),
    (dict(kind="tool_not_called", tools=["act"], turn=0), RUN, "pass"),
    (dict(kind="tool_not_called", tools=["act"]), RUN, "fail"),
    (dict(kind="tool_order", tools=["lookup", "act"]), RUN, "pass"),
    (dict(kind="tool_order", tools=["act", "lookup"]), RUN, "fail"),
    (dict(kind="tool_called_exactly", tools=["lookup"], count=2), RUN, "pass"),
    (dict(kind="tool_called_exactly", tools=["lookup"], count=1), RUN, "fail"),
    (dict(kind="auth_gate", tools=["lookup", "act"]), RUN, "pass"),   # the first lookup succeeded
    (dict(kind="auth_gate", tools=["lookup", "act"]), [DO], "fail"),  # {"valid": false} opens no gate
    (dict(kind="confirm_before", tools=["act"], turn=1), RUN, "pass"),
    (dict(kind="confirm_before", tools=["act"], turn=1), [DO, ASK], "fail"),
    (dict(kind="response_fields", values=["decision", "user_message"]), RUN, "pass"),
    (dict(kind="response_fields", values=["node_id"]), RUN, "fail"),
    (dict(kind="decision_in", values=["DONE", "X"]), RUN, "pass"),
    (dict(kind="decision_in", values=["ASK"]), RUN, "fail"),
    (dict(kind="decision_in", values=["ASK"]), [_turn([])], "fail"),  # had respond, gave no payload
    (dict(kind="decision_in", values=["ASK"]), [_turn([], has_respond=False)], "not_observable"),
    (dict(kind="decision_in", values=["ASK"]), [_turn(None, reply="plain text")], "not_observable"),
    (dict(kind="json_equals", field="meta.n", values=["2"], turn=0), RUN, "pass"),
    (dict(kind="json_in", field="decision", values=["ASK"], turn=1), RUN, "fail"),
    (dict(kind="text_contains_any", values=["CONFIRM"], turn=0), RUN, "pass"),
    (dict(kind="text_contains_any", values=["refund"]), RUN, "fail"),
    (dict(kind="text_contains_none", values=["done"]), RUN, "fail"),
    (dict(kind="no_pii", values=["SSN_CANARY_1"], patterns=[r"\b\d{3}-\d{3}-\d{4}\b"]), [ASK], "pass"),
    (dict(kind="no_pii", values=["555-0199"]), RUN, "fail"),
    (dict(kind="no_pii", patterns=[r"\d{3}-\d{4}"]), RUN, "fail"),
    (dict(kind="decision_in", values=["DONE"], turn=5), RUN, "fail"),  # the turn never happened
    (dict(kind="auth_gate", tools=["only_one"]), RUN, "fail"),  # malformed
])
def test_assertion_kinds(kwargs: dict, turns: list[SpecTurn], outcome: str) -> None:
    result = evaluate(SpecAssertion(clause="C1", **kwargs), turns)
    assert result.outcome == outcome, result.detail
    assert result.clause == "C1"
