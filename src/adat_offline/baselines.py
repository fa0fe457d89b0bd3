"""The AgentEval perturbation role of the offline/heuristic provider (prompt ``agenteval_perturb``).

It replays the user messages of the discovery conversation that reaches the graph target and
perturbs the one that enters the target (the last): a rewording picked by the target id (a
hedge, a thank-you, a preamble), keeping its ids and values. Like AgentEval's generator, it
has no statement to take the expected behaviour from, so it supplies it from the reply the
conversation reached: the first sentence of that reply that states a condition, else the first
that reports an action done, else the reply's first sentence.
"""

from __future__ import annotations

import hashlib

from adat.contracts.adat2_roles import AgentEvalInput, AgentEvalOutput, GeneratedTest, TurnView
from adat_offline import language as lang
from adat_offline.generation import assumed_facts, criteria_for, side_of, user_messages
from adat_offline.statements import request_phrase, statement_for


def perturb(inp: AgentEvalInput) -> AgentEvalOutput:
    """One test for the target: the path's user messages, the last one perturbed."""
    path = list(inp.path)
    hints = user_messages(path)[: inp.turn_limit]
    reply_at = max((i for i, t in enumerate(path) if t.role == "agent"), default=None)
    if not hints or reply_at is None:
        return AgentEvalOutput(test=None, reason="no conversation reaches the target with a user message")
    hints[-1] = _perturbed(hints[-1], inp.target.target_id)
    behaviour = _behaviour(path, reply_at)
    side = side_of(behaviour)
    success, failure = criteria_for(behaviour, side)
    what = "edge into" if inp.target.kind == "edge" else "activity of"
    test = GeneratedTest(goal=f"Check the {what} workflow target {inp.target.target_id}: {behaviour}.",
                         step_hints=hints, success_criteria=success, failure_criteria=failure,
                         expected_side=side,  # type: ignore[arg-type]
                         assumed_facts=assumed_facts(hints, inp.tester_facts))
    return AgentEvalOutput(test=test, reason="the user message entering the target is reworded")


def _behaviour(path: list[TurnView], reply_at: int) -> str:
    reply = path[reply_at].text
    request = request_phrase(path, reply_at)
    found = [(sentence, st) for sentence in lang.sentences(reply)
             if (st := statement_for(sentence, request)) is not None]
    # A sentence stating a condition names a boundary; prefer it to a report of an action done.
    found.sort(key=lambda pair: lang.condition_keyword(pair[0]) is None)
    if found:
        return found[0][1].behavior
    first = next(iter(lang.sentences(reply)), reply).strip()
    return "the agent states that " + lang.generalise(lang.strip_courtesy(first)).rstrip(".!?")


def _perturbed(message: str, target_id: str) -> str:
    # Wording only: ids, values and the request itself stay, so the reached reply stays the
    # expected one when the agent reads requests robustly.
    variant = int(hashlib.sha256(target_id.encode()).hexdigest(), 16) % 3
    if variant == 0:
        return f"Hmm, I am not sure this is possible, but {message[:1].lower()}{message[1:]}"
    if variant == 1:
        return f"{message} Thanks a lot, I have been waiting for this."
    return f"Quick question before anything else. {message}"
