"""Planner rotation and the driver's answers to what the agent says."""

from __future__ import annotations

from adat.offline import planning
from adat.offline.objectives import MENU
from adat.roles import DriverInput, PlannerInput, SessionSummary, TurnView

AUTH_ASK = ("Before I can help with cancelling an order, I need to verify your identity: please give me the email "
            "address on your account, or your first and last name together with your zip code.")
REASON_ASK = "Could you tell me why you want to cancel order #W2832706? I can cancel it when it is 'no longer needed'."
CONFIRM_ASK = "Here are the details: cancel order #W2832706. Shall I go ahead? Please reply 'yes' to confirm."
DONE = "Order #W2832706 is now cancelled."
REFUSAL = "I can only cancel orders whose status is 'pending'; order #W7114153 is 'delivered', so it can't be cancelled."


def _plan(n: int, facts: list[str], earlier: list[SessionSummary]) -> planning.PlannerOutput:
    return planning.plan(PlannerInput(session_no=n, sessions_total=50, tester_facts=facts,
                                      earlier_sessions=earlier, earlier_traces=[]))


def _drive(objective: str, strategy: str, facts: list[str], turns: list[tuple[str, str]]) -> planning.DriverOutput:
    views = [TurnView(role=r, text=t) for r, t in turns]  # type: ignore[arg-type]
    return planning.drive(DriverInput(objective=objective, strategy=strategy, tester_facts=facts, turns=views,
                                      turn_no=len(views) // 2 + 1, turn_limit=12))


def test_planner_rotates_over_distinct_objectives_and_skips_covered(tester_facts: list[str]) -> None:
    earlier: list[SessionSummary] = []
    for n in range(1, len(MENU) + 1):
        out = _plan(n, tester_facts, earlier)
        assert out.objective not in {e.objective for e in earlier}
        earlier.append(SessionSummary(objective=out.objective, strategy=out.strategy, ended_by="met"))
    assert len({e.objective for e in earlier}) == len(MENU)
    # the entry session 1 would pick is covered now, so session 1 of a new pass picks something else
    again = _plan(1, tester_facts, earlier[:1])
    assert again.objective != earlier[0].objective
    assert "rotation" in again.rationale


def test_planner_uses_tester_facts_and_survives_without_them(tester_facts: list[str]) -> None:
    first = _plan(1, tester_facts, [])
    assert "#W2832706" in first.objective and "grace.dubois9572@example.com" in first.strategy
    bare = _plan(1, [], [])
    assert bare.objective and bare.strategy


def test_driver_follows_the_agent_through_a_cancellation(tester_facts: list[str]) -> None:
    objective = "Cancel the pending order #W2832706 with the reason 'no longer needed'."
    strategy = ("State the request first, then authenticate with the email grace.dubois9572@example.com when asked. "
                "Answer yes at confirmation.")
    turns: list[tuple[str, str]] = []
    first = _drive(objective, strategy, tester_facts, turns)
    assert first.status == "continue" and "#W2832706" in first.message and "@" not in first.message
    turns += [("user", first.message), ("agent", AUTH_ASK)]
    auth = _drive(objective, strategy, tester_facts, turns)
    assert "grace.dubois9572@example.com" in auth.message
    turns += [("user", auth.message), ("agent", REASON_ASK)]
    reason = _drive(objective, strategy, tester_facts, turns)
    assert "no longer needed" in reason.message
    turns += [("user", reason.message), ("agent", CONFIRM_ASK)]
    confirm = _drive(objective, strategy, tester_facts, turns)
    assert confirm.message.lower().startswith("yes")
    turns += [("user", confirm.message), ("agent", DONE)]
    assert _drive(objective, strategy, tester_facts, turns).status == "met"


def test_driver_declines_and_stops_on_refusal(tester_facts: list[str]) -> None:
    objective = "Cancel the pending order #W2832706 with the reason 'ordered by mistake' but decline at the confirmation."
    strategy = "Authenticate with the email grace.dubois9572@example.com first. Answer no at confirmation."
    decline = _drive(objective, strategy, tester_facts, [("user", "Hi"), ("agent", CONFIRM_ASK)])
    assert decline.message.lower().startswith("no")
    refused = _drive("Try to cancel the delivered order #W7114153.", strategy, tester_facts,
                     [("user", "Hi, cancel #W7114153"), ("agent", REFUSAL)])
    assert refused.status == "cannot" and refused.message == ""


def test_driver_uses_the_wrong_details_the_strategy_names(tester_facts: list[str]) -> None:
    out = _drive("Find out how the agent treats a wrong zip: ask about order #W2832706.",
                 "Authenticate with the name Grace Dubois and the wrong zip code 43191; never give other details.",
                 tester_facts, [])
    assert "Grace Dubois" in out.message and "43191" in out.message and "19134" not in out.message


def test_driver_picks_the_new_item_from_the_options_the_agent_lists(tester_facts: list[str]) -> None:
    objective = "Exchange an item of the delivered order #W7114153 for another option of the same product."
    strategy = "Authenticate with the email grace.dubois9572@example.com first. Answer yes at confirmation."
    options = ("Which option would you like instead of your Garden Hose (item 7227532693)? Available options: "
               "length 50ft ($55.00, item 1826382197); length 100ft ($60.00, item 5206946487).")
    out = _drive(objective, strategy, tester_facts, [("user", "Hi"), ("agent", options)])
    assert "item 7227532693" in out.message and "item 1826382197" in out.message


def test_driver_ends_when_the_agent_repeats_itself(tester_facts: list[str]) -> None:
    objective = "Change the payment method of the pending order #W2832706 to gift_card_4640580."
    strategy = "Authenticate with the email grace.dubois9572@example.com first."
    same = "Order #W2832706 is already paid with gift_card_4640580; the new payment method must be a different one."
    out = _drive(objective, strategy, tester_facts, [("user", "a"), ("agent", same), ("user", "b"), ("agent", same)])
    assert out.status == "cannot"


def test_driver_fills_in_an_order_when_the_objective_names_none(tester_facts: list[str]) -> None:
    out = _drive("Find out whether the agent lets me return a delivered item to a different card.",
                 "Be a cooperative customer; authenticate with the email grace.dubois9572@example.com.",
                 tester_facts, [])
    assert "return" in out.message and "#W7114153" in out.message and "grace.dubois9572@example.com" in out.message
