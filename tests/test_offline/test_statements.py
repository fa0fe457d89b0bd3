"""Extractor and grounder of the offline/heuristic provider."""

from __future__ import annotations

import re

from adat.contracts.adat2_roles import ExtractorInput, GrounderInput, GroundingCandidate, TraceView, TurnView
from adat_offline import statements
from adat_offline.statements import request_phrase
from adat_offline.transform_wording import Request, paraphrase
from tests.test_offline.conftest import Extracted

CONCRETE = re.compile(r"#?W\d{7}|\b\d{10}\b|@|\$\d|credit_card_\d|gift_card_\d|paypal_\d")


def _trace(*turns: tuple[str, str]) -> TraceView:
    return TraceView(trace_id="tr", turns=[TurnView(role=r, text=t) for r, t in turns])  # type: ignore[arg-type]


def test_one_statement_per_condition_sentence_at_its_agent_turn() -> None:
    trace = _trace(
        ("user", "Hi! My email is grace.dubois9572@example.com. I want to cancel order #W7114153."),
        ("agent", "Thank you, Grace; I have verified your identity (user id grace_dubois_8144). I can only cancel "
                  "orders whose status is 'pending'; order #W7114153 is 'delivered', so it can't be cancelled."),
        ("user", "Ok, thanks."),
        ("agent", "You're welcome. If you need anything else, I can help with returns of delivered orders."),
    )
    out = statements.extract(ExtractorInput(trace=trace)).statements
    assert [s.supporting_turn for s in out] == [1, 3]
    first, second = out
    assert first.condition == "a user asks to cancel an order that is delivered"
    assert first.behavior.startswith("the agent can only cancel orders whose status is 'pending'")
    assert first.text.startswith("When a user asks to cancel an order that is delivered, the agent can only cancel")
    assert second.condition.startswith("if the user need anything else")
    assert "the agent can help with returns of delivered orders" in second.behavior


def test_statements_speak_of_classes_not_of_concrete_entities(extracted: list[Extracted]) -> None:
    assert len(extracted) >= 40
    for item in extracted:
        assert not CONCRETE.search(item.view.text), item.view.text
        assert " I " not in f" {item.view.text} " and " you " not in f" {item.view.text.lower()} "


def test_confirmation_answers_shape_the_condition() -> None:
    trace = _trace(("user", "I want to cancel order #W2832706."),
                   ("agent", "Here are the details. Shall I go ahead? Please reply 'yes' to confirm."),
                   ("user", "No, please don't do that."),
                   ("agent", "All right, I have not made that change; nothing has been modified."),
                   ("user", "Actually cancel it. Yes."),
                   ("agent", "Order #W2832706 is now cancelled."))
    out = statements.extract(ExtractorInput(trace=trace)).statements
    conditions = {s.supporting_turn: s.condition for s in out}
    assert conditions[3] == "a user asks to cancel an order and declines at the confirmation"
    assert conditions[5] == "a user asks to cancel an order and confirms"


def test_no_statement_from_replies_without_conditions() -> None:
    trace = _trace(("user", "Hello"), ("agent", "Hello! How can I help you today?"))
    assert statements.extract(ExtractorInput(trace=trace)).statements == []


def test_grounder_keeps_supported_statements_and_ranks_by_modal() -> None:
    reply = "I can only cancel orders whose status is 'pending'. I can refund it to a gift card."
    candidates = [
        GroundingCandidate(index=0, text="When X, the agent can only cancel orders whose status is 'pending'.",
                           condition="X", behavior="the agent can only cancel orders whose status is 'pending'",
                           supporting_reply=reply),
        GroundingCandidate(index=1, text="When X, the agent can refund it to a gift card.", condition="X",
                           behavior="the agent can refund it to a gift card", supporting_reply=reply),
        GroundingCandidate(index=2, text="When X, the agent ships orders overnight for free.", condition="X",
                           behavior="the agent ships orders overnight for free", supporting_reply=reply),
    ]
    items = {i.index: i for i in statements.ground(GrounderInput(statements=candidates)).items}
    assert items[0].grounded and items[1].grounded and not items[2].grounded
    assert items[0].confidence > items[1].confidence > items[2].confidence
    assert "key words" in items[0].reason


def test_a_request_for_a_new_purchase_is_its_own_class_of_request() -> None:
    turns = [TurnView(role="user", text="Hi! Please place a new order for one more of item 1000000001."),
             TurnView(role="agent", text="Sorry, I can only help with orders you already placed.")]
    assert request_phrase(turns, 1) == "a user asks to place a new order"
    assert statements.request_key("I'd like to buy another lamp") == "new_order"


def test_a_request_without_a_known_rewording_is_not_paraphrased() -> None:
    assert paraphrase(Request("new_order", "", ["1000000001"], "", "", "")) is None
    assert paraphrase(Request("cancel", "#W1000001", [], "", "", "")) == "Would you be able to cancel my order #W1000001 for me?"
