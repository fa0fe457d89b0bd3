"""``args_confirmed``: a write made on a user's confirmation carries what the agent confirmed.

The cases are a library's loans and a travel desk's bookings (no retail agent's tools or words):
the write keeps what the confirmation named (pass); it writes a card, a reason or a record the
confirmation did not name while one it named goes unused (fail); it writes an internal id the
confirmation never shows, with nothing named left unused (pass); money and long notes are not
values a confirmation is held to. Written before the evaluator.
"""

from __future__ import annotations

from typing import Any

import pytest

from adat.records import AgentToolCall, Turn
from adat.spec_records import SpecAssertion
from adat.stages.process_checks import spec_turns
from adat.trace_assertions import evaluate

WRITES = ["renewLoan", "cancel_booking", "update_booking_address", "update_member_address"]
ARGS = SpecAssertion(kind="args_confirmed", clause="st-1", tools=WRITES)


def _run(*exchanges: tuple[str, str, list[tuple[str, dict[str, Any]]]]) -> list[Any]:
    """(user message, agent reply, calls made in that turn) per turn."""
    turns: list[Turn] = []
    for user, reply, calls in exchanges:
        turns += [Turn(role="user", text=user),
                  Turn(role="agent", text=reply, tool_calls=[AgentToolCall.make(n, a, {"ok": True}, order=i)
                                                             for i, (n, a) in enumerate(calls)])]
    return spec_turns(turns, reports_calls=True)


def _asked(confirmation: str, write: tuple[str, dict[str, Any]], request: str = "please do it") -> list[Any]:
    return _run((request, confirmation + " Shall I go ahead? Reply yes.", []), ("yes", "Done.", [write]))


RENEW_ASK = "Here are the details: renew loan L-55012 ($4.50 fee, 1,204.00 points) and charge card MC-88213."


def test_a_write_with_the_confirmed_values_passes() -> None:
    run = _asked(RENEW_ASK, ("renewLoan", {"loan_id": "L-55012", "card_id": "MC-88213"}))
    assert evaluate(ARGS, run).outcome == "pass"


def test_a_write_to_another_card_than_the_confirmed_one_fails_naming_both() -> None:
    run = _asked(RENEW_ASK, ("renewLoan", {"loan_id": "L-55012", "card_id": "MC-77310"}))
    result = evaluate(ARGS, run)
    assert result.outcome == "fail"
    assert "MC-77310" in result.detail and "MC-88213" in result.detail and "renewLoan" in result.detail


def test_naming_the_old_value_beside_the_new_one_is_no_contradiction() -> None:
    ask = "Move booking BK-20931 from card MC-77310 to card MC-88213; MC-77310 gets a refund."
    run = _asked(ask, ("update_booking_payment", {"booking": "BK-20931", "card": "MC-88213"}))
    assert evaluate(ARGS.model_copy(update={"tools": ["update_booking_payment"]}), run).outcome == "pass"


def test_an_internal_id_the_confirmation_never_shows_is_fine_when_nothing_named_goes_unused() -> None:
    ask = "Your home address becomes 3 Elm Road, Springfield 62704."
    run = _asked(ask, ("update_member_address", {"member_id": "mem_88412", "street": "3 Elm Road",
                                                  "city": "Springfield", "zip": "62704"}))
    assert evaluate(ARGS, run).outcome == "pass"


def test_writing_to_the_member_instead_of_the_confirmed_booking_fails() -> None:
    ask = "The delivery address of booking BK-20931 becomes 3 Elm Road, Springfield 62704."
    run = _asked(ask, ("update_member_address", {"member_id": "mem_88412", "street": "3 Elm Road",
                                                  "city": "Springfield", "zip": "62704"}))
    result = evaluate(ARGS, run)
    assert result.outcome == "fail" and "BK-20931" in result.detail


def test_a_short_text_value_must_be_the_one_confirmed_or_said_by_the_user() -> None:
    choices = "Why do you cancel? I can record 'plans changed' or 'found a cheaper fare'."
    ask = "Here are the details: cancel booking BK-20931 for the reason 'plans changed'."
    kept = _run(("cancel BK-20931", choices, []), ("my plans changed", ask, []),
                ("yes", "Done.", [("cancel_booking", {"booking": "BK-20931", "reason": "plans changed"})]))
    swapped = _run(("cancel BK-20931", choices, []), ("my plans changed", ask, []),
                   ("yes", "Done.", [("cancel_booking", {"booking": "BK-20931", "reason": "found a cheaper fare"})]))
    assert evaluate(ARGS, kept).outcome == "pass"
    result = evaluate(ARGS, swapped)  # offered two turns earlier, but not what was confirmed
    assert result.outcome == "fail" and "found a cheaper fare" in result.detail


def test_a_value_the_user_said_passes_though_the_confirmation_paraphrases_it() -> None:
    run = _run(("cancel BK-20931, my plans changed", "Cancel booking BK-20931? Reply yes.", []),
               ("yes", "Done.", [("cancel_booking", {"booking": "BK-20931", "reason": "plans changed"})]))
    assert evaluate(ARGS, run).outcome == "pass"


def test_long_notes_and_single_words_are_not_held_to_the_confirmation() -> None:
    note = "customer called about the booking and asked to cancel it today"
    run = _asked("Cancel booking BK-20931?", ("cancel_booking", {"booking": "BK-20931", "note": note,
                                                                 "channel": "chat"}))
    assert evaluate(ARGS, run).outcome == "pass"


@pytest.mark.parametrize("money", ["$1,379.68", "$139.07", "1204.50"])
def test_money_in_a_confirmation_is_not_a_value_the_write_must_carry(money: str) -> None:
    run = _asked(f"Renew loan L-55012 for {money}.", ("renewLoan", {"loan_id": "L-55012", "card_id": "MC-1"}))
    assert evaluate(ARGS, run).outcome == "pass"


def test_a_write_without_a_confirmation_turn_and_calls_of_other_tools_are_left_to_other_checks() -> None:
    first_turn = _run(("renew L-55012 on card MC-88213", "Done.", [("renewLoan", {"loan_id": "L-99999"})]))
    assert evaluate(ARGS, first_turn).outcome == "pass"  # no confirmation to compare with (confirm_before's case)
    read = _asked(RENEW_ASK, ("get_loan", {"loan_id": "L-99999"}))
    assert evaluate(ARGS, read).outcome == "pass"


def test_with_confirmation_phrases_a_write_not_made_on_one_is_left_to_confirm_before() -> None:
    """A write in the turn that answers the identity question (before any confirmation) is
    confirm_before's failure; comparing it with that reply would name an id it never confirmed."""
    early = _run(("renew my loan", "Thank you; I verified you (member mem_88412). Which card?", []),
                 ("card MC-88213 please", "Done.", [("renewLoan", {"loan_id": "L-55012", "card_id": "MC-88213"})]))
    assert evaluate(ARGS, early).outcome == "fail"  # without phrases every turn is compared
    with_phrases = ARGS.model_copy(update={"values": ["yes", "go ahead"]})
    assert evaluate(with_phrases, early).outcome == "pass"
    swapped = _asked(RENEW_ASK, ("renewLoan", {"loan_id": "L-55012", "card_id": "MC-77310"}))
    assert evaluate(with_phrases, swapped).outcome == "fail"  # the "yes" turn is still checked


def test_args_confirmed_is_not_observable_on_a_target_that_reports_no_calls() -> None:
    turns = [Turn(role="user", text="renew"), Turn(role="agent", text=RENEW_ASK)]
    assert evaluate(ARGS, spec_turns(turns, reports_calls=False)).outcome == "not_observable"


def test_args_confirmed_needs_tools() -> None:
    assert SpecAssertion(kind="args_confirmed", clause="c").problems() == ["kind 'args_confirmed' needs tools"]
