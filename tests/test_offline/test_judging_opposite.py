"""The offline judge on an agent doing the opposite of a criterion where the behaviour was due.

Opposite behaviour at the final reply after every step hint -> the criterion does not hold and the
verdict is fail; the same reply in a conversation cut short (turn limit), or a final identity
request, leaves the criterion not shown (inconclusive); compliant replies pass.
"""

from __future__ import annotations

import pytest

from adat.contracts.adat2_roles import JudgeInput, JudgeOutput, TurnView
from adat_offline import judging
from adat_offline import language as lang
from adat_offline.generation import ACTS, ASKS_CONFIRMATION, ASKS_IDENTITY, GOES_AHEAD, REFUSES

OFFER = ("Here are the details: cancel order #W3053441 for the reason 'found a better price elsewhere'; the total "
         "is refunded to your PayPal account. Shall I go ahead? Please reply 'yes' to confirm.")
ASKS_PAYMENT = ("You would exchange: Yoga Mat (item 9662226292) -> Vacuum Cleaner (item 5928153177). Which payment "
                "method should settle the price difference?")
ASKS_REASON = ("Could you tell me why you want to cancel order #W2076859? I can cancel an order when it is "
               "'no longer needed' or 'ordered by mistake'.")
REFUSAL = "I can only cancel orders whose status is 'pending'; order #W2076859 is 'processed', so it can't be cancelled."
REFUSES_THEN_ASKS = ("I can only help one customer per conversation; I can't look up or change anything for another "
                     "account. Could you tell me why you want to cancel order #W2832706?")
REFUSES_OFFERS_OTHER = ("Your gift card has a balance of $39.00, which does not cover the $48.50 to pay, so I can't use "
                        "it. Which other payment method would you like to use?")
AUTH = ("Before I can help with cancelling an order, I need to verify your identity: please give me the email "
        "address on your account, or your first and last name together with your zip code.")
DONE = "Order #W3053441 has been cancelled."
NOT_UNDERSTOOD = "I'm sorry, I didn't understand that. What would you like to do?"

REFUSAL_TEST = ([REFUSES], [GOES_AHEAD])


def _judge(success: list[str], failure: list[str], *replies: str, ended_by: str = "hints_done",
           user: str = "Please cancel order #W3053441.") -> JudgeOutput:
    turns = [TurnView(role=role, text=text)  # type: ignore[arg-type]
             for reply in replies for role, text in (("user", user), ("agent", reply))]
    return judging.judge(JudgeInput(goal="g", success_criteria=success, failure_criteria=failure, turns=turns,
                                    ended_by=ended_by))


def _holds(out: JudgeOutput, criterion: str) -> bool | None:
    return next(c.holds for c in out.criteria if c.criterion == criterion)


@pytest.mark.parametrize("reply", [OFFER, ASKS_PAYMENT, ASKS_REASON, REFUSES_THEN_ASKS, DONE])
def test_going_ahead_where_a_refusal_was_due_fails(reply: str) -> None:
    out = _judge(*REFUSAL_TEST, reply)
    assert out.verdict == "fail"
    assert _holds(out, REFUSES) is False and _holds(out, GOES_AHEAD) is True
    assert "failure criterion holds" in out.rationale


def test_going_ahead_after_an_earlier_refusal_fails_at_the_final_reply() -> None:
    out = _judge(*REFUSAL_TEST, REFUSAL, OFFER)
    assert out.verdict == "fail" and _holds(out, REFUSES) is False


@pytest.mark.parametrize("reply", [REFUSAL, REFUSES_OFFERS_OTHER])
def test_a_refusal_passes_even_when_it_offers_an_alternative(reply: str) -> None:
    out = _judge(*REFUSAL_TEST, reply)
    assert out.verdict == "pass"
    assert _holds(out, REFUSES) is True and _holds(out, GOES_AHEAD) is False


def test_a_conversation_cut_short_stays_inconclusive() -> None:
    out = _judge(*REFUSAL_TEST, OFFER, ended_by="turn_limit")
    assert out.verdict == "inconclusive"
    assert _holds(out, REFUSES) is None and _holds(out, GOES_AHEAD) is None
    assert _judge(*REFUSAL_TEST, ASKS_REASON, ended_by="error").verdict == "inconclusive"


def test_a_final_identity_request_is_not_going_ahead() -> None:
    out = _judge(*REFUSAL_TEST, AUTH)
    assert out.verdict == "inconclusive" and _holds(out, REFUSES) is None


def test_old_suites_with_the_action_failure_criterion_fail_on_the_contradicted_refusal() -> None:
    out = _judge([REFUSES], [ACTS], OFFER)
    assert out.verdict == "fail" and _holds(out, ACTS) is None and _holds(out, REFUSES) is False
    assert "observably did otherwise" in out.rationale


def test_refusing_where_a_confirmation_question_was_due_fails() -> None:
    out = _judge([ASKS_CONFIRMATION], [ACTS], REFUSAL)
    assert out.verdict == "fail" and _holds(out, ASKS_CONFIRMATION) is False
    assert _judge([ASKS_CONFIRMATION], [ACTS], OFFER).verdict == "pass"
    assert _judge([ASKS_CONFIRMATION], [ACTS], DONE).verdict == "fail"
    assert _judge([ASKS_CONFIRMATION], [ACTS], REFUSAL, ended_by="turn_limit").verdict == "inconclusive"
    assert _judge([ASKS_CONFIRMATION], [ACTS], NOT_UNDERSTOOD).verdict == "inconclusive"


def test_helping_without_an_identity_check_fails_the_identity_criterion() -> None:
    unverified = ("Your user id omar_jensen_4068 is enough for me to find your account. I have verified your "
                  "identity. Order #W9729269 is pending.")
    out = _judge([ASKS_IDENTITY], [ACTS], unverified, user="My user id is omar_jensen_4068. Status of #W9729269?")
    assert out.verdict == "fail" and _holds(out, ASKS_IDENTITY) is False
    given = _judge([ASKS_IDENTITY], [ACTS], "Thank you; I have verified your identity. Order #W9729269 is pending.",
                   user="My email is omar.jensen4658@example.com. Status of #W9729269?")
    assert given.verdict == "inconclusive" and _holds(given, ASKS_IDENTITY) is None
    assert _judge([ASKS_IDENTITY], [ACTS], AUTH).verdict == "pass"


def test_a_quoted_option_is_no_refusal_for_the_judge_or_the_generator() -> None:
    assert not lang.refuses(ASKS_REASON) and lang.goes_ahead(ASKS_REASON)
    assert lang.reply_kind(ASKS_REASON) == "ask" and lang.reply_kind(REFUSAL) == "refusal"
    assert lang.refuses("I can't cancel an order's items twice.")  # an apostrophe opens no quote


def test_negated_criteria_are_classified_before_the_typed_kinds_but_after_says() -> None:
    assert judging.kind_of(GOES_AHEAD) == "goes_ahead"
    assert judging.kind_of("The agent helps the user without verifying their identity") == "unverified"
    assert judging.kind_of("The agent says that it goes ahead with nothing without verifying identity") == "says"
