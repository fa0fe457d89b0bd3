"""Activation-probe predicates (a mutation pack's ``expect_violation``) over one spec-test run.

``trace`` predicates look at every tool call of the run (``called``: each was called;
``not_called``: none was; ``order_violation.must_not_happen [A, B, ...]``, the TDAD paper's:
these tools were called in this order, each after the previous one; ``order_violation.missing_before
[A, B, ...]``, adat's: A was called with one of the later tools not called before it); ``text`` predicates at the user-visible replies
(``contains_any``: some reply holds one of the strings; ``not_contains_any``: no reply holds
any); ``json`` predicates at the ``respond`` payloads (some payload has the value). All given
predicates must hold. A target that does not report its tool calls cannot show a trace
predicate: the answer is None (not observable), never True.
"""

from __future__ import annotations

import json
from typing import Any


def _calls(result: Any) -> list[str] | None:
    names: list[str] = []
    for turn in result.turns:
        if turn.tool_calls is None:
            return None
        names += [c.name for c in turn.tool_calls]
    return names


def _trace_holds(trace: Any, calls: list[str]) -> bool:
    if any(tool not in calls for tool in trace.called):
        return False
    if any(tool in calls for tool in trace.not_called):
        return False
    order = trace.order_violation
    if order is not None:
        if order.must_not_happen and not called_in_order(order.must_not_happen, calls):
            return False
        if order.missing_before and not _missing_before(order.missing_before, calls):
            return False
    return True


def called_in_order(tools: list[str], calls: list[str]) -> bool:
    """Whether ``tools`` occur in ``calls`` in this order (a subsequence: A, then B later, ...)."""
    rest = iter(calls)
    return all(any(call == tool for call in rest) for tool in tools)


def _missing_before(tools: list[str], calls: list[str]) -> bool:
    first, *later = tools
    if first not in calls:
        return False
    before = set(calls[: calls.index(first)])
    return not all(tool in before for tool in later)


def _payloads(result: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in result.turns:
        for text in turn.respond_json:
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out


def _same(a: Any, b: Any) -> bool:
    return a == b or str(a).lower() == str(b).lower()


def predicates_hold(predicates: Any, result: Any) -> bool | None:
    """Whether every predicate of ``predicates`` (a ViolationPredicates) holds on ``result``."""
    if predicates.trace is not None:
        calls = _calls(result)
        if calls is None:
            return None
        if not _trace_holds(predicates.trace, calls):
            return False
    replies = [turn.reply.lower() for turn in result.turns]
    if predicates.text is not None:
        text = predicates.text
        if text.contains_any and not any(s.lower() in r for s in text.contains_any for r in replies):
            return False
        if any(s.lower() in r for s in text.not_contains_any for r in replies):
            return False
    if predicates.json_ is not None:
        payloads = _payloads(result)
        for name, value in predicates.json_.equals.items():
            if not any(name in p and _same(p[name], value) for p in payloads):
                return False
        for name, values in predicates.json_.in_.items():
            if not any(name in p and any(_same(p[name], v) for v in values) for p in payloads):
                return False
    return True
