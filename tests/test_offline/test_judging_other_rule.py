"""Judge strictness (issue 28 item 3): a reply on the expected side that states a rule different
from the criterion's is observable non-compliance — *fail* with that reason — while the same rule
in other words or with other values still passes, and a conversation cut short stays inconclusive.

The examples are a made-up subscription service, not the reference agent: the rule is generic."""

from __future__ import annotations

from adat.contracts.adat2_roles import JudgeInput, JudgeOutput, TurnView
from adat_offline import judging
from adat_offline.generation import GOES_AHEAD, REFUSES, SAYS

RULE = ("The agent says that can only pause plans whose status is 'active'; the plan is 'expired', so it can't "
        "be paused")
SAME_RULE = "I can only pause plans whose status is 'active'; plan P-1182 is 'cancelled', so it can't be paused."
OTHER_RULE = ("I'm sorry, plans can only be paused within 30 days of the last renewal, and plan P-1182 was renewed "
              "earlier than that, so it can't be paused.")
UNRELATED = "I'm sorry, I can't help with that today."


def _judge(reply: str, ended_by: str = "hints_done") -> JudgeOutput:
    turns = [TurnView(role="user", text="Please pause plan P-1182."), TurnView(role="agent", text=reply)]
    return judging.judge(JudgeInput(goal="g", success_criteria=[RULE, REFUSES], failure_criteria=[GOES_AHEAD],
                                    turns=turns, ended_by=ended_by))


def test_a_refusal_that_states_another_rule_fails_with_that_reason() -> None:
    out = _judge(OTHER_RULE)
    assert out.verdict == "fail"
    assert "states a rule different from the criterion's" in out.rationale
    assert next(c.holds for c in out.criteria if c.criterion == RULE) is False


def test_the_same_rule_with_other_values_passes() -> None:
    assert _judge(SAME_RULE).verdict == "pass"


def test_another_rule_in_a_conversation_cut_short_is_not_judged() -> None:
    assert _judge(OTHER_RULE, ended_by="turn_limit").verdict == "inconclusive"


def test_a_refusal_that_states_no_rule_is_not_a_different_rule() -> None:
    assert _judge(UNRELATED).verdict == "inconclusive"


def test_a_criterion_that_states_no_rule_is_not_held_to_one() -> None:
    plain = f"{SAYS} the plan is paused until next month"
    turns = [TurnView(role="user", text="Please pause plan P-1182."), TurnView(role="agent", text=OTHER_RULE)]
    out = judging.judge(JudgeInput(goal="g", success_criteria=[plain], failure_criteria=[], turns=turns,
                                   ended_by="hints_done"))
    assert "states a rule different" not in out.rationale
