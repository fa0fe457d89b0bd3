"""Free-text understanding on messages as testers write them."""

from __future__ import annotations

import pytest

from adat_reference.agent.entities import PaymentRef, address, person_name
from adat_reference.agent.items import name_pattern
from adat_reference.agent.nlu import cancel_reason, confirmation, find_intents, parse


@pytest.mark.parametrize(("text", "answer"), [
    ("yes", "yes"), ("Yes please", "yes"), ("confirm", "yes"), ("Yes, go ahead.", "yes"), ("ok, proceed", "yes"),
    ("no", "no"), ("actually no", "no"), ("No, I changed my mind", "no"), ("wait", "no"),
    ("yes... actually no", "unclear"), ("what is the total?", None),
    ("Yes, I no longer need it", "yes"),  # 'no longer' is a reason, not a refusal
])
def test_confirmations(text: str, answer: str | None) -> None:
    assert confirmation(text) == answer


@pytest.mark.parametrize(("text", "reason"), [
    ("I no longer need it", "no longer needed"), ("I don't need it anymore", "no longer needed"),
    ("ordered by mistake", "ordered by mistake"), ("I bought it by accident", "ordered by mistake"),
    ("because I found a better price elsewhere", "i found a better price elsewhere"),
    ("it's too expensive", "it's too expensive"), ("please cancel it", None),
])
def test_cancellation_reasons(text: str, reason: str | None) -> None:
    assert cancel_reason(text) == reason


@pytest.mark.parametrize(("text", "intents"), [
    ("I want to cancel order #W1234567", ["cancel"]),
    ("Can I return the headphones?", ["return"]),
    ("I'd like to exchange my keyboard", ["exchange"]),
    ("Change the size of the t-shirt in my pending order", ["change_items"]),
    ("Please update the shipping address of #W1234567", ["modify_address"]),
    ("Change my default address", ["user_address"]),
    ("I want to pay with my gift card instead", ["modify_payment"]),
    ("Where is my order #W1234567?", ["order_info"]),
    ("How many t-shirt options are available?", ["product_info"]),
    ("Can I speak to a human?", ["transfer"]),
    ("Please add a mouse to my order", ["modify_other"]),
    ("I want to buy a new laptop", ["out_of_scope"]),
    ("Cancel it, I'll buy it again later", ["cancel"]),
    ("Return the lamp and exchange the kettle", ["return", "exchange"]),
])
def test_intents(text: str, intents: list[str]) -> None:
    assert find_intents(text) == intents


def test_ids_emails_and_user_ids() -> None:
    p = parse("I'm mia_garcia_4516 (mia.garcia2723@example.com); orders W5490111 and #W7387996, "
              "items 1151293680 and 7706410293, card credit_card_3124723")
    assert p.order_ids == ["#W5490111", "#W7387996"]
    assert p.numbers == ["1151293680", "7706410293"]
    assert p.emails == ["mia.garcia2723@example.com"]
    assert p.user_ids == ["mia_garcia_4516"]
    assert PaymentRef("id", "credit_card_3124723") in p.payments


@pytest.mark.parametrize(("text", "name", "zip_code"), [
    ("I'm Yusuf Rossi, zip 19122", ("Yusuf", "Rossi"), "19122"),
    ("My name is Mei Kovacs and my zip code is 28236", ("Mei", "Kovacs"), "28236"),
    ("Fatima Johnson, 78712", ("Fatima", "Johnson"), "78712"),
    ("yusuf rossi 19122", ("Yusuf", "Rossi"), "19122"),
    ("I'm looking for my order", None, None),
])
def test_names_and_zip_codes(text: str, name: tuple[str, str] | None, zip_code: str | None) -> None:
    assert person_name(text) == name
    assert parse(text).zip == zip_code


@pytest.mark.parametrize(("text", "refs"), [
    ("refund to my paypal", [PaymentRef("paypal")]),
    ("use the gift card", [PaymentRef("gift_card")]),
    ("the visa ending in 1234", [PaymentRef("credit_card", "visa", "1234")]),
    ("the original payment method", [PaymentRef("original")]),
    ("to my paypal instead of the credit card", [PaymentRef("paypal")]),
])
def test_payment_phrases(text: str, refs: list[PaymentRef]) -> None:
    assert parse(text).payments == refs


def test_addresses() -> None:
    assert address("to 123 Elm Street, Suite 641, Austin, TX 78712, USA") == {
        "address1": "123 Elm Street", "address2": "Suite 641", "city": "Austin", "state": "TX",
        "zip": "78712", "country": "USA"}
    assert address("update it to 45 Oak Lane, Springfield, IL 62704") == {
        "address1": "45 Oak Lane", "city": "Springfield", "state": "IL", "zip": "62704"}
    assert address("deliver it to Suite 641 instead") == {"address2": "Suite 641"}
    assert address("I'm Yusuf Rossi, zip 19122") == {}


@pytest.mark.parametrize(("name", "text"), [
    ("T-Shirt", "my tshirts"), ("T-Shirt", "the t-shirt"), ("Headphones", "the headphone"),
    ("Mechanical Keyboard", "the keyboard"), ("Hiking Boots", "my hiking boot"), ("Vacuum Cleaner", "the cleaner"),
])
def test_product_mentions(name: str, text: str) -> None:
    assert name_pattern(name).search(text)
