"""The one evaluator of typed assertions over what a run showed: TDAD's spec tests and AdaT2's
process checks (:mod:`adat.stages.process_checks`) judge the same
:class:`~adat.spec_records.SpecAssertion` over the same :class:`~adat.spec_records.SpecTurn` /
:class:`~adat.spec_records.AgentToolCall` records.

Each assertion is judged ``pass``, ``fail`` or ``not_observable``. What a target cannot show is
never a pass: tool-trace kinds need a target that reports its tool calls (``SpecTurn.tool_calls``
is None otherwise), payload kinds need a ``respond`` payload (or a JSON reply). A turn of a
target that has the ``respond`` tool (``SpecTurn.has_respond``) but gave no payload is a failure
of the payload kinds: it could have answered and did not.

Scopes (``assertion.turn`` None): tool kinds look at the whole run; ``decision_in`` and
``json_*`` at the last turn; ``response_fields`` at every turn; text kinds and ``no_pii`` at
all agent text of the run.

``confirm_before`` without a ``turn`` (AdaT2's process checks, where no turn is fixed in advance):
every call of ``tools`` comes in a user turn whose message holds one of ``values`` (the user's
confirmation) and after an agent reply of an earlier turn that made none of those calls (the
agent asked first). ``auth_gate`` with ``gates``: a successful call of any of ``tools[0]`` and
``gates`` opens the gate. ``args_confirmed`` (:func:`_as_confirmed`): what a write made on a
confirmation carries is what the confirmation named.

A test's verdict (:func:`verdict_of`) is ``fail`` when it errored or an assertion failed;
``pass`` when some assertion that needs the agent to show something passed (a tool called, a
payload field, a phrase, ``respond`` once); otherwise ``not_observable``, never ``pass``. The
kinds in :data:`HOLD_ON_SILENCE` pass on an agent that shows nothing, so they alone do not make a
pass: a test with such assertions beside others that were not observable is not observable (an
agent unrelated to the spec "passes" ``no_pii``). A test written only with them passes when all
were observed and the agent replied, called a tool or gave a payload.
"""

from __future__ import annotations

import json
import re
from typing import Any

from adat.spec_records import AgentToolCall, AssertionOutcome, Outcome, SpecAssertion, SpecTurn

TOOL_KINDS = frozenset({"tool_called", "tool_not_called", "tool_order", "tool_called_exactly", "auth_gate",
                        "confirm_before", "args_confirmed"})


#: kinds that pass when the agent shows nothing (no text, no tool call): never a test's only evidence
HOLD_ON_SILENCE = frozenset({"no_pii", "text_contains_none", "tool_not_called", "auth_gate", "confirm_before",
                             "args_confirmed"})


def verdict_of(results: list[AssertionOutcome], turns: list[SpecTurn], error: str | None = None) -> Outcome:
    """``pass`` / ``fail`` / ``not_observable`` of one test run (the rule in the module docstring)."""
    if error is not None or any(r.outcome == "fail" for r in results):
        return "fail"
    if any(r.outcome == "pass" and r.kind not in HOLD_ON_SILENCE for r in results):
        return "pass"
    showed = any(t.reply.strip() or t.respond_json or t.tool_calls for t in turns)
    if results and showed and all(r.outcome == "pass" and r.kind in HOLD_ON_SILENCE for r in results):
        return "pass"
    return "not_observable"


def evaluate_all(assertions: list[SpecAssertion], turns: list[SpecTurn]) -> list[AssertionOutcome]:
    return [evaluate(a, turns, index=i) for i, a in enumerate(assertions)]


def evaluate(assertion: SpecAssertion, turns: list[SpecTurn], *, index: int = 0) -> AssertionOutcome:
    """Judge one assertion; a malformed one is a fail naming what it lacks."""
    problems = assertion.problems()
    if problems:
        outcome, detail = "fail", "malformed assertion: " + "; ".join(problems)
    elif assertion.turn is not None and assertion.turn >= len(turns):
        outcome, detail = "fail", f"turn {assertion.turn} never happened ({len(turns)} turns ran)"
    elif assertion.kind in TOOL_KINDS:
        outcome, detail = _tool_kind(assertion, turns)
    elif assertion.kind in ("text_contains_any", "text_contains_none", "no_pii"):
        outcome, detail = _text_kind(assertion, turns)
    else:
        outcome, detail = _payload_kind(assertion, turns)
    return AssertionOutcome(index=index, kind=assertion.kind, clause=assertion.clause, outcome=outcome,
                           detail=detail)


# --- tool trace ------------------------------------------------------------------------------
def _calls(turns: list[SpecTurn]) -> list[tuple[int, AgentToolCall]] | None:
    out: list[tuple[int, AgentToolCall]] = []
    for i, turn in enumerate(turns):
        if turn.tool_calls is None:
            return None
        out += [(i, c) for c in turn.tool_calls]
    return out


def _succeeded(call: AgentToolCall) -> bool:
    """No error, and no top-level ``false`` in the output (``{"verified": false}`` is a refusal)."""
    if call.error is not None:
        return False
    try:
        output = json.loads(call.result_json or "null")
    except ValueError:
        return True
    return not (isinstance(output, dict) and any(v is False for v in output.values()))


def _tool_kind(a: SpecAssertion, turns: list[SpecTurn]) -> tuple[Outcome, str]:
    all_calls = _calls(turns)
    if all_calls is None:
        return "not_observable", "the target does not report its tool calls"
    calls = all_calls if a.turn is None or a.kind == "confirm_before" else [c for c in all_calls if c[0] == a.turn]
    names = [c.name for _, c in calls]
    if a.kind == "tool_called":
        missing = [t for t in a.tools if t not in names]
        return ("fail", f"not called: {', '.join(missing)}") if missing else ("pass", "")
    if a.kind == "tool_not_called":
        present = [t for t in a.tools if t in names]
        return ("fail", f"called: {', '.join(present)}") if present else ("pass", "")
    if a.kind == "tool_called_exactly":
        n = names.count(a.tools[0])
        return ("pass", "") if n == a.count else ("fail", f"{a.tools[0]} called {n} times, expected {a.count}")
    if a.kind == "tool_order":
        missing = [t for t in a.tools if t not in names]
        if missing:
            return "fail", f"not called: {', '.join(missing)}"
        firsts = [names.index(t) for t in a.tools]
        return ("pass", "") if firsts == sorted(firsts) else ("fail", f"first calls in order {names}")
    if a.kind == "auth_gate":
        gates, guarded = [a.tools[0], *a.gates], a.tools[1:]
        opened = False
        for _, call in calls:
            if call.name in gates and _succeeded(call):
                opened = True
            if call.name in guarded and not opened:
                return "fail", f"{call.name} called before a successful {' or '.join(gates)}"
        return "pass", ""
    if a.kind == "args_confirmed":
        return _as_confirmed(a, turns, calls)
    if a.turn is None:
        return _confirmed_each_time(a, turns, calls)
    # confirm_before: none of the tools before the confirming user turn
    early = [f"{c.name} (turn {i})" for i, c in calls if c.name in a.tools and i < (a.turn or 0)]
    return ("fail", f"called before the confirmation turn {a.turn}: {', '.join(early)}") if early else ("pass", "")


def _confirmed_each_time(a: SpecAssertion, turns: list[SpecTurn],
                         calls: list[tuple[int, AgentToolCall]]) -> tuple[Outcome, str]:
    """``confirm_before`` without a turn: each call of ``tools`` answers a confirmation the agent asked for."""
    asked = False  # an agent reply without any of the tools came before
    for i, turn in enumerate(turns):
        made = [c.name for j, c in calls if j == i and c.name in a.tools]
        if made:
            if not asked:
                return "fail", f"{made[0]} called in turn {i} before the agent asked for a confirmation"
            if not _confirms(turn.user, a.values):
                return "fail", f"{made[0]} called in turn {i}, whose user message confirms nothing"
        asked = asked or not made
    return "pass", ""


def _confirms(message: str, phrases: list[str]) -> bool:
    """Whether a user's message holds one of the confirmation ``phrases`` (case-insensitive)."""
    said = message.lower()
    return any(p.lower() in said for p in phrases)


#: a word-like token (ids such as ``#W123``, ``L-55012``, ``gift_card_7``, ``a.b7@c.com``, ``62704``)
_TOKEN = re.compile(r"[\w#][\w.@#/-]*")
_WORDS = re.compile(r"[a-z]+")
#: a short text value (a reason, a city) the confirmation is held to; longer text is a note
SHORT_TEXT_WORDS = (2, 6)


def identifiers(text: str) -> dict[str, str]:
    """The identifier-like tokens of ``text``, normalized (lower case, no ``#``) -> as written: a
    token of 4+ characters holding a digit, all digits only from 5 on (money and counts are not)."""
    out: dict[str, str] = {}
    for raw in _TOKEN.findall(text):
        token = raw.rstrip(".@#/-")
        if len(token) < 4 or not any(ch.isdigit() for ch in token):
            continue
        if not any(ch.isalpha() for ch in token) and not (token.isdigit() and len(token) >= 5):
            continue
        out.setdefault(token.lower().lstrip("#"), token)
    return out


def _shape(token: str) -> str:
    return "digits" if token.isdigit() else "mixed"


def _leaves(value: Any) -> list[str]:
    """The scalar values of a call's arguments, as text."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [] if value is None or isinstance(value, bool) else [str(value)]


def _plain(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def _short_texts(leaves: list[str]) -> list[str]:
    low, high = SHORT_TEXT_WORDS
    return [leaf for leaf in leaves if not any(ch.isdigit() for ch in leaf) and low <= len(_WORDS.findall(leaf.lower())) <= high]


def _as_confirmed(a: SpecAssertion, turns: list[SpecTurn],
                  calls: list[tuple[int, AgentToolCall]]) -> tuple[Outcome, str]:
    """``args_confirmed``: each call of ``tools`` in user turn N > 0 against the agent's reply of
    turn N-1 (the confirmation it answers). It fails when the calls of the turn write an identifier
    the confirmation did not show while one the confirmation showed, of the same shape (digits
    only, or letters and digits), goes unused by them ("confirmed card A, charged card B"), or a
    short text value that neither the confirmation nor any user message so far holds. An internal
    id the confirmation never shows is fine as long as nothing it named goes unused; a write in the
    first turn has no confirmation to compare with, and with ``values`` (the phrases of a user's
    confirmation) a write in a turn whose user message holds none of them was not made on one
    (``confirm_before`` judges both)."""
    for i in range(1, len(turns)):
        made = [c for j, c in calls if j == i and c.name in a.tools]
        if not made or (a.values and not _confirms(turns[i].user, a.values)):
            continue  # no write, or one not made on a confirmation (confirm_before's case)
        shown = identifiers(turns[i - 1].reply)
        written: dict[str, tuple[str, str]] = {}  # normalized -> (as written, call)
        for call in made:
            for leaf in _leaves(call.arguments):
                for norm, raw in identifiers(leaf).items():
                    written.setdefault(norm, (raw, call.name))
        unused = [norm for norm in shown if norm not in written]
        for norm, (raw, name) in written.items():
            rivals = [shown[u] for u in unused if _shape(u) == _shape(norm)]
            if norm not in shown and rivals:
                return "fail", (f"{name} in turn {i} writes {raw}, which the confirmation it answers did not "
                                f"name, and not {' or '.join(rivals)}, which it named")
        stated = _plain(turns[i - 1].reply + " " + " ".join(t.user for t in turns[:i + 1]))
        for call in made:
            for text in _short_texts(_leaves(call.arguments)):
                if f" {_plain(text)} " not in f" {stated} ":
                    return "fail", (f"{call.name} in turn {i} writes {text!r}, which neither the confirmation "
                                    "it answers nor the user stated")
    return "pass", ""


# --- text -------------------------------------------------------------------------------------
def _every_turn(a: SpecAssertion, turns: list[SpecTurn]) -> list[SpecTurn]:
    """The turns of a kind whose scope without a ``turn`` is every turn (text kinds, ``response_fields``)."""
    return turns if a.turn is None else [turns[a.turn]]


def _text_kind(a: SpecAssertion, turns: list[SpecTurn]) -> tuple[Outcome, str]:
    scope = _every_turn(a, turns)
    text = "\n".join(t.reply for t in scope)
    low = text.lower()
    if a.kind == "text_contains_any":
        return ("pass", "") if any(v.lower() in low for v in a.values) else ("fail", "none of the phrases appears")
    if a.kind == "text_contains_none":
        found = [v for v in a.values if v.lower() in low]
        return ("fail", f"found: {', '.join(found)}") if found else ("pass", "")
    # no_pii: what the user sees and every structured payload (evidence fields leak too)
    blob = text + "\n" + "\n".join(p for t in scope for p in t.respond_json)
    found = [v for v in a.values if v and v.lower() in blob.lower()]
    found += [p for p in a.patterns if _search(p, blob)]
    return ("fail", f"PII shown: {', '.join(found)}") if found else ("pass", "")


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text, flags=re.IGNORECASE) is not None
    except re.error:
        return pattern.lower() in text.lower()


# --- respond payload --------------------------------------------------------------------------
def _payloads(turn: SpecTurn) -> list[dict[str, Any]]:
    out = []
    for raw in turn.respond_json:
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _field(payload: dict[str, Any], path: str) -> tuple[bool, Any]:
    value: Any = payload
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _payload_kind(a: SpecAssertion, turns: list[SpecTurn]) -> tuple[Outcome, str]:
    last = [turns[-1] if a.turn is None else turns[a.turn]] if turns else []
    scope = _every_turn(a, turns) if a.kind == "response_fields" else last
    for turn in scope:
        payloads = _payloads(turn)
        if not payloads:
            if not turn.has_respond:
                return "not_observable", "the target gave no structured payload"
            return "fail", "no respond payload in the turn"
        payload = payloads[-1]
        if a.kind == "response_fields":
            missing = [f for f in a.values if not _field(payload, f)[0]]
            if missing:
                return "fail", f"missing fields: {', '.join(missing)}"
            continue
        name = "decision" if a.kind == "decision_in" else a.field
        present, value = _field(payload, name)
        if not present:
            return "fail", f"no {name!r} field"
        allowed = a.values[:1] if a.kind == "json_equals" else a.values
        if _as_text(value) not in allowed:
            return "fail", f"{name} = {_as_text(value)!r}, expected {' | '.join(allowed)}"
    return "pass", ""
