"""Validity condition (a): assumed facts against the initial retail database."""

from __future__ import annotations

import pytest

from adat_reference.retail.fact_check import FactChecker
from tests.test_evaluation.conftest import make_test

GRACE = "grace.dubois9572@example.com"  # user grace_dubois_8144, zip 19134


@pytest.fixture(scope="module")
def checker(replayer) -> FactChecker:  # type: ignore[no-untyped-def]
    return FactChecker(replayer.db)


def _problems(checker: FactChecker, *facts: str, hints: tuple[str, ...] = ("hi",), side: str = "allowed") -> list[str]:
    return checker.problems(make_test("t", list(hints), facts=list(facts)), side)


def test_true_facts_hold(checker):
    fact = (f"Test account 1: email {GRACE}, name Grace Dubois, zip code 19134, user id grace_dubois_8144. "
            "Payment methods: paypal_5959630, credit_card_2754190, gift_card_4640580.")
    assert _problems(checker, fact, f"Orders of {GRACE}: #W2832706 is pending (item 6074724585 (Smart Watch))") == []


def test_payment_method_ids_are_not_read_as_user_ids(checker):
    assert _problems(checker, "Payment methods: credit_card_2754190, gift_card_4640580.") == []


def test_unknown_ids_status_owner_zip_and_balance(checker):
    assert any("order #W0000000" in p for p in _problems(checker, "Order #W0000000 is pending"))
    assert any("not 'delivered'" in p for p in _problems(checker, "#W2832706 is delivered"))
    assert _problems(checker, "#W2832706 is not delivered") == []  # negated status is not checked
    owner = _problems(checker, "Orders of arjun.jensen6049@example.com: #W2832706")
    assert any("belongs to grace_dubois_8144" in p for p in owner)
    assert any("zip code 99999" in p for p in _problems(checker, f"email {GRACE}, zip code 99999"))
    assert any("balance" in p for p in _problems(checker, "gift_card_8495882 (balance $5)"))
    assert _problems(checker, "gift_card_8495882 (balance $370)") == []


def test_unknown_ids_in_hints_are_allowed_only_for_a_denied_side_probe(checker):
    hints = ("Please cancel #W0000000",)
    assert any("order #W0000000" in p for p in _problems(checker, hints=hints, side="allowed"))
    assert _problems(checker, hints=hints, side="denied") == []
