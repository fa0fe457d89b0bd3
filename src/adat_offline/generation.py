"""Plain tests and the direct baseline of the offline/heuristic provider.

A plain test replays the user messages of the discovery conversation up to the supporting
reply (the request the statement answers) and checks the statement's behaviour there. Its
criteria use a few fixed phrasings the offline judge reads back (refusal, action done,
confirmation asked, identity asked) plus the behaviour itself, checked by word overlap.
"""

from __future__ import annotations

import re

from adat.contracts.adat2_roles import (
    DirectInput,
    DirectOutput,
    GeneratedTest,
    PlainInput,
    StatementView,
    TraceView,
    TurnView,
)
from adat_offline import language as lang
from adat_offline.statements import GOES_AHEAD as GOES_AHEAD_BEHAVIOUR
from adat_offline.statements import request_phrase, statement_for

# Typed criteria: the judge recognises these exact openings (see adat_offline.judging).
REFUSES = "The agent refuses or says it cannot do what the user asked"
ACTS = "The agent reports the requested change as done"
ASKS_CONFIRMATION = "The agent asks the user for explicit confirmation before changing anything"
ASKS_IDENTITY = "The agent asks the user to verify their identity before helping"
SAYS = "The agent says that"
OPPOSITE = "The agent says the opposite of:"
TRANSFERS = "The agent transfers the user to a human agent"
ASKS_DETAILS = "The agent asks the user for the missing details before changing anything"
OFFERS_CHANGE = ("The agent offers the change for confirmation or reports it done before the missing details are "
                 "given")
GOES_AHEAD = ("The agent goes ahead with the user's request: it offers to carry it out, asks for the details "
              "or a confirmation to carry it out, or reports it done")
#: reply kind (language.reply_kind) -> (the typed success criterion, the typed failure criterion)
KIND_CRITERIA = {
    "auth": (ASKS_IDENTITY, ACTS),
    "refusal": (REFUSES, GOES_AHEAD),  # an offer or a question carrying the request forward fails it too
    "completion": (ACTS, REFUSES),
    "confirm": (ASKS_CONFIRMATION, ACTS),
    "missing": (ASKS_DETAILS, OFFERS_CHANGE),  # an incomplete request: asks for the rest, changes nothing
}
DENIED_KINDS = ("refusal", "auth", "missing")
ALLOWED_KINDS = ("completion", "confirm")


def statement_kind(behavior: str, reply: str) -> str:
    """The reply kind (language.reply_kind) the statement's test checks. A reply that turns the
    request down may also offer something else ("... but a colleague
    could look at it, if you wish"): a statement of that offer is about the offer, not about the refusal, so
    the refusal's typed criteria do not describe it ('offer')."""
    kind = lang.reply_kind(reply) if reply else ""
    if kind == "refusal" and side_from_words(behavior) == "allowed":
        return "offer"
    return kind


def behaviour_core(behavior: str) -> str:
    """The behaviour without its 'the agent (states that)' subject."""
    return re.sub(r"^the agent (states that |asks the user to |goes ahead with the request and asks:\s*)?", "",
                  behavior.strip(), flags=re.I).rstrip(".?")


def side_of(behavior: str, reply: str = "") -> str | None:
    """The side a reply shows: 'denied' for refusals, identity demands and requests for the missing
    parts of an incomplete request, 'allowed' for actions done and confirmations asked; otherwise
    (and for an offer stated next to a refusal) read from the behaviour's modal words (None when
    it names neither)."""
    if goes_ahead_statement(behavior):
        return "allowed"
    kind = statement_kind(behavior, reply)
    if kind in DENIED_KINDS:
        return "denied"
    if kind in ALLOWED_KINDS:
        return "allowed"
    return side_from_words(behavior)


#: a user's answer that takes the approval away ("No, …", "Yes — actually no, …")
DECLINES = re.compile(r"^\W*no\b|\bactually,? no\b", re.I)


def goes_ahead_statement(behavior: str) -> bool:
    """Whether the behaviour is the agent carrying the request forward with a question for a
    detail (see adat_offline.statements.going_ahead)."""
    return behavior.strip().lower().startswith(GOES_AHEAD_BEHAVIOUR)


def side_from_words(behavior: str) -> str | None:
    if lang.is_refusal(behavior) or re.search(r"\b(must|need|needs|require|requires|required|only)\b",
                                               behavior, re.I):
        return "denied"
    if lang.is_completion(behavior) or lang.ASKS_CONFIRM.search(behavior) or re.search(
            r"\b(can|will)\b", behavior, re.I):
        return "allowed"
    return None


def criteria_for(behavior: str, side: str | None, reply: str = "") -> tuple[list[str], list[str]]:
    """(success, failure) criteria: the behaviour said, plus the typed check of what the reply
    does (refuses, asks for identity, asks for the missing details, asks for confirmation, reports
    the change done, transfers)."""
    core = behaviour_core(behavior)
    success = [f"{SAYS} {core}"]
    failure: list[str] = []
    if goes_ahead_statement(behavior):  # the decision is to go ahead: a refusal contradicts it
        return [*success, GOES_AHEAD], [REFUSES]
    kind = statement_kind(behavior, reply) if reply else ("refusal" if side == "denied" else "")
    if re.search(r"transferred to a human|transferring you", reply or core, re.I):
        success.append(TRANSFERS)
    elif kind in KIND_CRITERIA:
        wanted, unwanted = KIND_CRITERIA[kind]
        success.append(wanted)
        failure.append(unwanted)
    elif side == "denied" and reply and not lang.is_question(reply) and not lang.goes_ahead(reply):
        # A requirement stated as the answer to the request ("a replacement has to differ from
        # what you have"), with no question or offer after it, turns the request down in other
        # words: going ahead instead contradicts it.
        failure.append(GOES_AHEAD)
    failure.append(f"{OPPOSITE} {core}")
    return success, failure


def user_messages(turns: list[TurnView]) -> list[str]:
    return [t.text for t in turns if t.role == "user" and t.text.strip()]


def assumed_facts(hints: list[str], tester_facts: list[str]) -> list[str]:
    """The tester facts the hints rely on: those naming an id or email the hints use."""
    used = {m for h in hints for rx in (lang.ORDER_ID, lang.EMAIL, lang.USER_ID) for m in rx.findall(h)}
    used |= {f"#{u}" for u in used if u.startswith("W")}
    return [f for f in tester_facts if any(u in f for u in used)]


def side_after_confirmation(context: list[TurnView]) -> str | None:
    """'denied' when the reply answers a no to the agent's confirmation question: the change is
    not made, the denied side of "no write without the user's yes", which a reply such as
    "nothing has been changed" names in no words (a test on no side is one the auditor cannot
    place); else None."""
    agent = [t.text for t in context[:-1] if t.role == "agent"]
    answer = context[-2].text if len(context) >= 2 and context[-2].role == "user" else ""
    return "denied" if agent and lang.ASKS_CONFIRM.search(agent[-1]) and DECLINES.search(answer) else None


def plain_test(statement: StatementView, context: list[TurnView], tester_facts: list[str]) -> GeneratedTest:
    """The plain test of a statement from the conversation that led to its supporting reply
    (the last turn of ``context``)."""
    hints = user_messages(context)
    if not hints:
        hints = [f"Hi, I have a question: {statement.condition}?"]
    reply = context[-1].text if context and context[-1].role == "agent" else ""
    side = side_of(statement.behavior, reply) or side_after_confirmation(context)
    success, failure = criteria_for(statement.behavior, side, reply)
    return GeneratedTest(goal=f"Check that when {statement.condition}, {statement.behavior}.",
                         step_hints=hints, success_criteria=success, failure_criteria=failure,
                         expected_side=side, assumed_facts=assumed_facts(hints, tester_facts))  # type: ignore[arg-type]


def generate_plain(inp: PlainInput) -> GeneratedTest:
    """The plain test for the statement's side, replayed from its supporting conversation."""
    context = list(inp.supporting_context)
    if not context or context[-1].role != "agent":
        context.append(TurnView(role="agent", text=inp.supporting_reply))
    hints = user_messages(context)[: inp.turn_limit]
    test = plain_test(inp.statement, context, inp.tester_facts)
    return test.model_copy(update={"step_hints": hints or test.step_hints})


def generate_direct(inp: DirectInput) -> DirectOutput:
    """Direct baseline: one test per agent reply sentence stating a condition that no existing
    test covers (same step hints and same first criterion), up to ``max_tests``."""
    covered = {(tuple(t.step_hints), t.success_criteria[0] if t.success_criteria else "")
               for t in inp.existing_tests}
    tests: list[GeneratedTest] = []
    remaining = 0
    for trace in inp.discovery_traces:
        for index, turn in enumerate(trace.turns):
            if turn.role != "agent":
                continue
            for test in _direct_tests(trace, index, inp.tester_facts):
                key = (tuple(test.step_hints[: inp.turn_limit]), test.success_criteria[0])
                if key in covered:
                    continue
                covered.add(key)
                if len(tests) < inp.max_tests:
                    tests.append(test.model_copy(update={"step_hints": list(key[0])}))
                else:
                    remaining += 1
    return DirectOutput(tests=tests, exhausted=remaining == 0)


def _direct_tests(trace: TraceView, index: int, tester_facts: list[str]) -> list[GeneratedTest]:
    request = request_phrase(trace.turns, index)
    out = []
    for sentence in lang.sentences(trace.turns[index].text):
        st = statement_for(sentence, request)
        if st is None:
            continue
        view = StatementView(statement_id="direct", text=st.text, condition=st.condition, behavior=st.behavior)
        out.append(plain_test(view, trace.turns[: index + 1], tester_facts))
    return out
