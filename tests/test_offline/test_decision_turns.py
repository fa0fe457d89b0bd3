"""Tests that stop at the decision turn: the agent going ahead is a statement of its own, a stated
requirement is contradicted by going ahead, and the planner tries the values a stated option list
leaves out. The agent's wording here is made up for the tests."""

from __future__ import annotations

from adat.contracts.adat2_roles import (
    ExtractorInput,
    JudgeInput,
    PlainInput,
    StatementView,
    TraceView,
    TurnView,
)
from adat_offline import generation, judging, language, statements
from adat_offline.facts import parse_facts
from adat_offline.observation import Action, observe
from adat_offline.plan_queue import _cases_for, _other_method, _unlisted_option, offered_fewer

FACTS = ["Test account 1: email a.b@example.com, name Ann Bee, zip code 12345. Payment methods: paypal_1, "
         "credit_card_2, gift_card_3 (balance $10).",
         "Orders of a.b@example.com: #W1000001 is active, paid with paypal_1 (item 1000000001 (Lamp)); "
         "#W1000002 is shipped, paid with paypal_1 (item 1000000003 (Lamp))."]
ASKS_OPTION = ("Thanks, Ann; I have verified your identity. Which option would you like instead of your Lamp "
               "(item 1000000001)? Available options: red (item 1000000009), blue (item 1000000008).")
REFUSED = "Sorry, I can only look you up by email, so I can't use that name. Please give me the email address."


def _turns(*pairs: tuple[str, str]) -> list[TurnView]:
    return [TurnView(role=r, text=t) for r, t in pairs]  # type: ignore[arg-type]


def _ahead() -> statements.ExtractedStatement:
    trace = TraceView(trace_id="t", objective="Swap an item of order #W1000001 (status: active).", turns=_turns(
        ("user", "Hi! I'm Ann Bee, zip code 12345. For order #W1000001, I'd like to modify item 1000000001."),
        ("agent", ASKS_OPTION)))
    found = [s for s in statements.extract(ExtractorInput(trace=trace)).statements
             if s.behavior.startswith(statements.GOES_AHEAD)]
    assert len(found) == 1
    return found[0]


def test_a_reply_going_ahead_is_a_statement_with_the_identity_and_state_tried() -> None:
    st = _ahead()
    assert st.supporting_turn == 1
    assert "an order that is active" in st.condition and "identifies with their name and zip code" in st.condition
    assert "which option would the user like instead of the user's lamp" in st.behavior.lower()


def test_its_test_stops_there_and_a_refusal_fails_it() -> None:
    st = _ahead()
    view = StatementView(statement_id="s", text=st.text, condition=st.condition, behavior=st.behavior)
    context = _turns(("user", "Hi! I'm Ann Bee, zip code 12345. For order #W1000001, I'd like to modify item "
                              "1000000001."), ("agent", ASKS_OPTION))
    test = generation.generate_plain(PlainInput(statement=view, supporting_reply=ASKS_OPTION,
                                                supporting_context=context, tester_facts=FACTS, turn_limit=10))
    assert test.expected_side == "allowed" and len(test.step_hints) == 1
    assert generation.GOES_AHEAD in test.success_criteria and test.failure_criteria == [generation.REFUSES]

    def verdict(reply: str) -> str:
        return judging.judge(JudgeInput(goal=test.goal, success_criteria=test.success_criteria,
                                        failure_criteria=test.failure_criteria, ended_by="hints_done",
                                        turns=_turns(("user", test.step_hints[0]), ("agent", reply)))).verdict
    assert verdict(ASKS_OPTION) == "pass"
    assert verdict(REFUSED) == "fail"  # "the email address" it asks for is an identity detail, not an address


def test_an_email_address_is_an_identity_detail_not_a_shipping_address() -> None:
    assert language.asks_auth("Please give me the email address on your account.")
    assert not language.ASKS_ADDRESS.search("Please give me the email address on your account.")
    assert language.ASKS_ADDRESS.search("What is the new address?")
    assert not language.ends_going_ahead(REFUSED)


def test_a_requirement_stated_as_the_answer_fails_when_the_agent_goes_ahead_instead() -> None:
    reply = "Order #W1000001 is charged to paypal_1 today; a replacement card has to differ from that one."
    success, failure = generation.criteria_for(
        "the agent states that the order is charged to a payment method today; a replacement card has to differ "
        "from that one", "denied", reply)
    assert generation.GOES_AHEAD in failure

    def verdict(final: str) -> str:
        return judging.judge(JudgeInput(goal="g", success_criteria=success, failure_criteria=failure,
                                        ended_by="hints_done", turns=_turns(("user", "Please use paypal_1."),
                                                                            ("agent", final)))).verdict
    assert verdict(reply) == "pass"
    assert verdict("Here are the details: pay order #W1000001 with paypal_1. Shall I go ahead?") == "fail"


def test_values_left_out_of_the_options_offered_come_first() -> None:
    facts = parse_facts(FACTS)
    account = facts.accounts[0]
    shipped = account.orders[1]
    refund = TraceView(trace_id="r", objective="Refund an item of order #W1000002 (status: shipped).", turns=_turns(
        ("user", "Hi! My email is a.b@example.com. I'd like to refund item 1000000003 of order #W1000002."),
        ("agent", "Where should the refund go? It can go to paypal_1 or to your gift card gift_card_3.")))
    swap = TraceView(trace_id="s", objective="Swap an item of order #W1000001 (status: active).", turns=_turns(
        ("user", "Hi! My email is a.b@example.com. For order #W1000001, I'd like to swap item 1000000001."),
        ("agent", ASKS_OPTION)))
    obs = observe([refund, swap], ("active", "shipped"), {"r": "refund", "s": "swap"})
    action = Action("refund", "item", "items of shipped orders")
    assert offered_fewer(obs, action, facts)  # credit_card_2 is on file but was not offered
    assert _cases_for(obs, action, facts)[0] is _other_method
    assert _other_method(obs, facts, account, shipped) == (
        "with the payment method credit_card_2, which did not pay the order", "Payment: credit_card_2.")
    # the Lamp's listed options leave out item 1000000003, another Lamp of the tester facts
    case = _unlisted_option(obs, facts, account, account.orders[0])
    assert case is not None and case[1] == "Item: 1000000001. New item: 1000000003."
