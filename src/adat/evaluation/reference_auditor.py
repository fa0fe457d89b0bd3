"""The reference auditor: validity labels and boundary–side mappings from the reference agent's
side log (paper §4.3, DESIGN §7; the decision procedure is written down in docs/auditing.md).

For the built-in reference agent the auditor needs no LLM: every policy rule has an id, the
side log says which rule the agent evaluated on which side at which user turn, and every rule
comes from the policy, so every mapping is explicit and its passage is the rule's policy text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adat.evaluation.replay import Event, Replayer, agent_replies, hint_messages, user_messages
from adat.records import AuditLabel, BoundaryMapping, Execution, Side, TestCase

PRODUCED_BY = "reference/side-log"

# Criteria wording, for tests that do not state their expected side (see criteria_side).
_DENIES = re.compile(
    r"\b(refus\w*|declin\w*|den(?:y|ies|ied)|cannot|can ?not|can't|unable|not (?:be )?(?:able|allowed|possible|"
    r"eligible|permitted)|won't|will not|must not|does not (?:cancel|change|modify|process|return|exchange|"
    r"proceed)|only|requires?|needs? to|must (?:first )?(?:verify|authenticate|provide)|verif\w+ (?:their |the "
    r"user's |your )?identity|authenticat\w*)\b", re.IGNORECASE)
_ALLOWS = re.compile(
    r"\b(done|cancel(?:s|led|ed)|(?:has|have) been|processed|completed?|updated|changed|modified|exchanged|"
    r"returned|refunded|confirm\w*|proceeds?|successfully|places?|offers? to|transfer\w*)\b", re.IGNORECASE)


@dataclass(frozen=True)
class CheckedSituation:
    """Where a test's checked behaviour happens: a user turn and the rule evaluations it maps to."""

    turn: int
    events: tuple[tuple[str, Side], ...]

    @property
    def side(self) -> Side:
        return self.events[0][1]

    @property
    def rules(self) -> set[str]:
        return {rule for rule, _side in self.events}


def checked_situation(events: tuple[Event, ...] | list[Event]) -> CheckedSituation | None:
    """The rule evaluations the test's behaviour depends on, or None when no rule was evaluated.

    The checked turn is the last user turn that triggered any rule evaluation (the tester's last
    request the agent decided on). If a rule was denied there, the reply states the denial, so
    the mapped evaluations are the denied ones; if every rule passed, the agent went ahead
    because all of them passed, so each is mapped on its allowed side.
    """
    if not events:
        return None
    turn = max(t for _rule, _side, t in events)
    at = [(rule, side) for rule, side, t in events if t == turn]
    denied = [(rule, side) for rule, side in at if side == "denied"]
    chosen = list(dict.fromkeys(denied or at))
    return CheckedSituation(turn=turn, events=tuple((r, s) for r, s in chosen))  # type: ignore[misc]


def criteria_side(test: TestCase) -> Side | None:
    """The side a test's criteria expect, by a majority of their wording.

    A success criterion votes for the side its wording names (a refusal, a condition the
    request must meet, an identity check -> denied; an action done, a confirmation asked or a
    transfer -> allowed); a failure criterion votes for the other side. None on a tie.
    """
    votes = {"allowed": 0, "denied": 0}
    for criteria, flip in ((test.success_criteria, False), (test.failure_criteria, True)):
        for text in criteria:
            side = "denied" if _DENIES.search(text) else "allowed" if _ALLOWS.search(text) else None
            if side is not None:
                votes[("allowed" if side == "denied" else "denied") if flip else side] += 1
    if votes["allowed"] == votes["denied"]:
        return None
    return "allowed" if votes["allowed"] > votes["denied"] else "denied"


class ReferenceAuditor:
    """Labels tests run against the reference agent: explicit or invalid, with their mappings."""

    def __init__(self, replayer: Replayer, run_id: str) -> None:
        self.replayer = replayer
        self.run_id = run_id
        # the agent's own fact check of its initial database (its plugin's ground truth)
        self.facts = replayer.truth.fact_checker(replayer.db)

    def audit(self, test: TestCase, execution: Execution | None) -> AuditLabel:
        """The validity label of ``test``, judged on what its execution on the original agent sent.

        Without an execution (or one with no user turn) the test's step hints are replayed.
        """
        recorded = execution is not None and any(t.role == "user" for t in execution.turns)
        messages = user_messages(execution) if execution is not None and recorded else hint_messages(test)
        replay = self.replayer.replay(messages, "original")
        reasons: list[str] = []
        if execution is not None and recorded and list(replay.replies) != agent_replies(execution):
            reasons.append("note: replaying the execution's messages does not reproduce its replies; "
                           "the replay's side log is used")
        worded = criteria_side(test)
        expected = test.expected_side or worded
        valid = True
        # (a) the facts it assumes hold in the initial database
        problems = self.facts.problems(test, expected)
        if problems:
            valid = False
            reasons += [f"(a) facts: {p}" for p in problems]
        # (b) its messages reach the situation it checks
        situation = checked_situation(replay.events)
        if situation is None:
            valid = False
            why = f" (the session failed: {replay.error})" if replay.error else ""
            reasons.append(f"(b) never reaches a policy decision: the agent evaluated no rule{why}")
        # (c) its criteria agree with the rule's outcome on the compliant original agent
        if expected is None:
            valid = False
            reasons.append("(c) expected side unknown: expected_side is unset and the criteria name "
                           "neither a refusal nor the requested action")
        elif situation is not None and expected != situation.side:
            valid = False
            reasons.append(f"(c) the test expects the {expected} side, but the policy puts the request on the "
                           f"{situation.side} side of {', '.join(sorted(situation.rules))} "
                           f"(user turn {situation.turn})")
        elif worded is not None and worded != expected:
            valid = False
            reasons.append(f"(c) the criteria contradict the expected side: expected_side is {expected}, but most "
                           f"criteria describe the {worded} side")
        mappings: list[BoundaryMapping] = []
        if valid and situation is not None:
            mappings = [BoundaryMapping(boundary=rule, side=side, explicit=True, passages=[self._passage(rule)])
                        for rule, side in situation.events]
            source = "expected_side" if test.expected_side else "criteria wording"
            reasons.append(f"checked at user turn {situation.turn}: "
                           + ", ".join(f"{r} {s}" for r, s in situation.events)
                           + f"; the {source} agrees; facts hold")
        return AuditLabel(run_id=self.run_id, test_id=test.test_id,
                          validity="explicit" if valid else "invalid", reasons=reasons, mappings=mappings,
                          produced_by=PRODUCED_BY)

    def _passage(self, rule_id: str) -> str:
        return self.replayer.truth.rule_passage(rule_id) or rule_id
