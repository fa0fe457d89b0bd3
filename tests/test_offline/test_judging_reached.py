"""The judge fails a behaviour the final reply contradicts and leaves inconclusive only what the
conversation never reached (issue 11, item 5)."""

from __future__ import annotations

from adat.contracts.adat2_roles import JudgeInput, TurnView
from adat_offline import judging

REQUEST = "Please pause order #W1000001."
OFFER = "Here are the details: pause order #W1000001. Shall I go ahead? Please reply 'yes' to confirm."
REFUSAL = "Sorry, order #W1000001 cannot be paused because it is delivered."
ASK = "Which order would you like to pause?"


def _verdict(criterion: str, reply: str, ended_by: str = "hints_done") -> str:
    turns = [TurnView(role="user", text=REQUEST), TurnView(role="agent", text=reply)]
    return judging.judge(JudgeInput(goal="g", success_criteria=[criterion], failure_criteria=[], turns=turns,
                                    ended_by=ended_by)).verdict


def test_a_refusal_in_other_words_is_contradicted_by_an_offer() -> None:
    said = "The agent says that shipped orders cannot be paused by it"
    assert _verdict(said, OFFER) == "fail"  # the agent went ahead where the behaviour refuses
    assert _verdict(said, OFFER, ended_by="turn_limit") == "inconclusive"  # not due: never reached


def test_a_grant_in_other_words_is_contradicted_by_a_refusal() -> None:
    said = "The agent says that it can pause active plans for the user"
    assert _verdict(said, REFUSAL) == "fail"
    assert _verdict(said, ASK) == "inconclusive"  # a question for a detail neither grants nor refuses


def test_criteria_an_llm_generator_writes_are_read_too() -> None:
    assert judging.kind_of("The agent proceeds with the pause without asking") == "goes_ahead"
    assert judging.kind_of("The agent pauses the order without authenticating the user") == "unverified"

