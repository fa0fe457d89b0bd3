"""Execution labels TP / FP / FN / TN / INC (paper §4.3, after AgentEval) and, for the reference
agent, the compliance judgement they rest on.

The label compares the judge's verdict with the auditor's judgement of whether the agent
complied with what the policy requires for the behaviour the test checks:

=============  ==========  ==========
               verdict fail  verdict pass
not complied   TP          FN
complied       FP          TN
=============  ==========  ==========

INC instead whenever the verdict is inconclusive, the execution ended before the agent was due
to show the checked behaviour, or the auditor cannot tell whether the agent complied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from adat.evaluation.replay import Replay, Replayer, agent_replies, checked_situation, user_messages
from adat.records import ExecLabel, Execution, VerdictValue

if TYPE_CHECKING:
    from adat.targets.plugins import SeededFault as Fault


def paper_label(verdict: VerdictValue, complied: bool | None, reached: bool) -> ExecLabel:
    """The label of one execution of a valid boundary test."""
    if verdict == "inconclusive" or not reached or complied is None:
        return "INC"
    if complied:
        return "FP" if verdict == "fail" else "TN"
    return "TP" if verdict == "fail" else "FN"


@dataclass(frozen=True)
class Compliance:
    """The auditor's judgement of one execution (it never sees the verdict)."""

    reached: bool
    complied: bool | None
    attributed: bool = False  # the non-compliance is caused by the variant's fault
    rationale: str = ""


def reference_compliance(replayer: Replayer, execution: Execution, mapped_rules: set[str],
                         fault: Fault | None = None) -> Compliance:
    """Did the reference agent variant of ``execution`` comply for the rules the test maps to?

    The execution's user messages are replayed on its own variant (which must reproduce the
    recorded replies) and on the original agent, the compliant oracle. The execution reached
    the checked behaviour when its variant evaluated a mapped rule, or when it decided a rule unlike
    the policy before the original agent's checked turn and so never got there (not complied). It
    complied when, from the checked turn on (the original agent's last user turn with a rule evaluation), its replies
    equal the original agent's, its successful write calls and database end state equal the
    original's, and it decided no mapped rule unlike the policy. A non-compliance is attributed
    to ``fault`` when the fault's rule decided unlike the policy at or before the first differing
    turn, or, when no rule did, the fault's rule was evaluated by then (what the agent says about
    it changed).
    """
    messages = user_messages(execution)
    own = replayer.replay(messages, execution.agent_variant)
    recorded = agent_replies(execution)
    if list(own.replies) != recorded:
        return Compliance(reached=True, complied=None,
                          rationale="cannot tell: replaying the execution does not reproduce its recorded replies")
    if execution.agent_variant == "original":
        if not own.evaluated(mapped_rules):
            return _ended_before(mapped_rules)
        return Compliance(reached=True, complied=True,
                          rationale="the original reference agent enforces the policy by construction")
    original = replayer.replay(messages, "original")
    situation = checked_situation(original.events)
    start = situation.turn if situation is not None else 0
    if not own.evaluated(mapped_rules):
        # Not reached. Because the variant decided a rule unlike the policy on the way there (the
        # original agent, given the same messages, went on to the checked behaviour): that is a
        # non-compliance. Otherwise the conversation simply stopped short.
        early = [(turn, rule) for rule, turn in own.activations if turn <= start]
        if not early or not original.evaluated(mapped_rules):
            return _ended_before(mapped_rules)
        turn, rule = min(early)
        attributed = fault is not None and _caused_by(fault, own, turn)
        return Compliance(reached=True, complied=False, attributed=attributed,
                          rationale=f"not complied: decided {rule} unlike the policy at user turn {turn}, so the "
                                    f"agent never reached {', '.join(sorted(mapped_rules))} (the original agent "
                                    f"did at user turn {start})"
                                    + (f"; caused by fault {fault.id} (rule {fault.rule})"
                                       if attributed and fault is not None else ""))
    differences = _differences(own, original, mapped_rules, start)
    if not differences:
        return Compliance(reached=True, complied=True,
                          rationale=f"from user turn {start} on, replies, writes and end state equal the "
                                    "original agent's")
    first = min(turn for turn, _ in differences)
    attributed = fault is not None and _caused_by(fault, own, first)
    text = "; ".join(why for _, why in sorted(differences))
    return Compliance(reached=True, complied=False, attributed=attributed,
                      rationale=f"not complied: {text}" + (f"; caused by fault {fault.id} (rule {fault.rule})"
                                                           if attributed and fault is not None else ""))


def _ended_before(mapped_rules: set[str]) -> Compliance:
    return Compliance(reached=False, complied=None,
                      rationale=f"the execution ended before the agent evaluated {', '.join(sorted(mapped_rules))}")


def _differences(own: Replay, original: Replay, mapped: set[str], start: int) -> list[tuple[int, str]]:
    """(user turn, what differs) between a variant's replay and the original agent's."""
    out: list[tuple[int, str]] = [(turn, f"decided {rule} unlike the policy at user turn {turn}")
                                  for rule, turn in own.activations if rule in mapped]
    for turn in range(start, max(len(own.replies), len(original.replies))):
        mine = own.replies[turn] if turn < len(own.replies) else None
        theirs = original.replies[turn] if turn < len(original.replies) else None
        if mine != theirs:
            out.append((turn, f"reply at user turn {turn} differs from the original agent's"))
            break
    if own.writes != original.writes or own.db_hash != original.db_hash:
        differing = [min(a[0], b[0]) for a, b in zip(own.writes, original.writes, strict=False) if a != b]
        longer = own.writes if len(own.writes) > len(original.writes) else original.writes
        shorter = min(len(own.writes), len(original.writes))
        turn = differing[0] if differing else longer[shorter][0] if len(longer) > shorter else start
        out.append((turn, f"write calls / database end state differ (from user turn {turn})"))
    return out


def _caused_by(fault: Fault, own: Replay, first_turn: int) -> bool:
    """The differing rule evaluation is the fault's rule.

    Either the fault's rule decided unlike the policy at or before the first difference, or no
    rule did and the fault's rule was evaluated at or before it — a fault that changes what the
    agent *says* about a rule without changing its decision (rewritten sentences, or parameters
    a sentence quotes, e.g. the statuses a cancellable order may have, which may show in a later
    confirmation summary).
    """
    earlier = [rule for rule, turn in own.activations if turn <= first_turn]
    if earlier:
        return fault.rule in earlier
    return any(rule == fault.rule and turn <= first_turn for rule, _side, turn in own.events)
