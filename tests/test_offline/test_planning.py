"""The planner plans from what it observed; the driver answers what the agent says."""

from __future__ import annotations

from adat.contracts.adat2_roles import DriverInput, PlannerInput, SessionSummary, TraceView, TurnView
from adat_offline import objectives, observation, planning
from adat_offline.facts import parse_facts
from adat_offline.objectives import OPEN, OWN_REASON
from adat_offline.observation import observe, parse_actions

# An agent this test makes up: what it says it can do, and how it asks for a reason.
CAN_DO = ("Hello! I can pause or resume active orders, refund items of shipped orders, and answer "
          "questions about your account. Please give me your email first.")
REASON_ASK = "Could you tell me why you want to pause order #W2832706? I can pause it when it is 'travelling' or 'moving'."
AUTH_ASK = "Before I go on, please give me your email so that I can verify your identity."
CONFIRM_ASK = "Here are the details: pause order #W2832706. Shall I go ahead? Please reply 'yes' to confirm."
DONE = "Order #W2832706 has been updated: it is paused now."
REFUSAL = "Sorry, order #W7114153 cannot be paused because it is delivered."
FACTS = ["Test account 1: email a.b@example.com, name Ann Bee, zip code 12345, user id ann_bee_1234. Payment methods: "
         "paypal_1, credit_card_2, gift_card_3 (balance $10).",
         "Orders of a.b@example.com: #W1000001 is active, paid with paypal_1 (item 1000000001 (Lamp), item "
         "1000000002 (Mug)); #W1000002 is shipped, paid with credit_card_2 (item 1000000003 (Lamp)); #W1000003 is "
         "paused, paid with paypal_1."]


def _trace(i: int, objective: str, *turns: tuple[str, str]) -> TraceView:
    return TraceView(trace_id=f"t{i}", objective=objective, turns=[TurnView(role=r, text=t) for r, t in turns])  # type: ignore[arg-type]


def _plan(n: int, earlier: list[SessionSummary], traces: list[TraceView]) -> planning.PlannerOutput:
    return planning.plan(PlannerInput(session_no=n, sessions_total=50, tester_facts=FACTS,
                                      earlier_sessions=earlier, earlier_traces=traces))


def _drive(objective: str, strategy: str, turns: list[tuple[str, str]], facts: list[str] = FACTS) -> planning.DriverOutput:
    views = [TurnView(role=r, text=t) for r, t in turns]  # type: ignore[arg-type]
    return planning.drive(DriverInput(objective=objective, strategy=strategy, tester_facts=facts, turns=views,
                                      turn_no=len(views) // 2 + 1, turn_limit=12))


def test_actions_are_read_from_what_the_agent_says_it_can_do() -> None:
    actions = parse_actions(CAN_DO, ("active", "shipped", "paused"))
    assert [(a.verb, a.target, a.states) for a in actions] == [
        ("pause", "order", ("active",)), ("resume", "order", ("active",)), ("refund", "item", ("shipped",)),
        ("answer", "question", ())]
    assert parse_actions(REFUSAL, ()) == [] and parse_actions("I can only pause active orders.", ()) == []


def test_first_session_asks_and_the_next_plan_what_was_heard() -> None:
    first = _plan(1, [], [])
    assert first.objective == OPEN
    earlier = [SessionSummary(objective=OPEN, strategy=first.strategy, ended_by="met", last_agent_reply=CAN_DO)]
    traces = [_trace(1, OPEN, ("user", "What can you do?"), ("agent", CAN_DO))]
    seen = []
    for n in range(2, 30):
        out = _plan(n, earlier, traces)
        earlier.append(SessionSummary(objective=out.objective, strategy=out.strategy, ended_by="met"))
        seen.append(out.objective)
    fresh = [o for o in seen if o != OPEN]  # OPEN again once every combination is covered
    assert len(set(fresh)) == len(fresh) > 15  # nothing planned twice
    facts = parse_facts(FACTS)
    for objective in seen:  # exact entity choice: the order named has the status the objective names
        for order in facts.all_orders():
            if order[1].order_id in objective:
                assert f"(status: {order[1].status})" in objective
    refunds = [o for o in seen if o.startswith("Refund")]
    assert "(status: shipped)" in refunds[0]  # the state the agent named first ...
    assert any("(status: active)" in o for o in refunds)  # ... then its opposite
    assert any("only by the user id" in o for o in seen) and any("without identifying" in o for o in seen)


def test_conditions_heard_are_planned_on_both_sides() -> None:
    traces = [_trace(1, OPEN, ("agent", CAN_DO)),
              _trace(2, "Pause order #W1000001 (status: active).", ("user", "pause it"), ("agent", REASON_ASK))]
    obs = observe(traces, ("active", "shipped", "paused"), {"t2": "pause"})
    assert obs.asked["pause"] >= {"reason"} and obs.options["pause"] == ["travelling", "moving"]
    earlier = [SessionSummary(objective=t.objective, strategy="", ended_by="met") for t in traces]
    seen = []
    for n in range(3, 40):
        out = _plan(n, earlier, traces)
        earlier.append(SessionSummary(objective=out.objective, strategy=out.strategy, ended_by="met"))
        seen.append(out.strategy)
    assert any(f"Reason: '{OWN_REASON}'" in s for s in seen)  # outside the options offered
    assert any("Reason: 'travelling'" in s for s in seen)


def test_driver_follows_the_agent_through_a_request() -> None:
    objective, strategy = "Pause order #W1000001 (status: active).", "State the request first. Identify with the email a.b@example.com."
    first = _drive(objective, strategy, [])
    assert "pause order #W1000001" in first.message and "@" not in first.message
    turns = [("user", first.message), ("agent", AUTH_ASK)]
    auth = _drive(objective, strategy, turns)
    assert "a.b@example.com" in auth.message
    turns += [("user", auth.message), ("agent", REASON_ASK)]
    reason = _drive(objective, strategy, turns)
    assert "travelling" in reason.message or "moving" in reason.message  # an option the agent offered
    turns += [("user", reason.message), ("agent", CONFIRM_ASK)]
    assert _drive(objective, strategy, turns).message.lower().startswith("yes")
    assert _drive(objective, strategy, [*turns, ("user", "Yes"), ("agent", DONE)]).status == "met"


def test_a_cooperative_user_takes_each_offered_option_across_requests_and_the_same_one_again() -> None:
    """Each-choice coverage: with no reason in the plan, the answer rotates over the options the
    agent offered with the request's order, so a suite exercises every option, not only the first."""
    strategy = "Identify with the email a.b@example.com."
    picks = {}
    for order in ("#W1000001", "#W1000002", "#W1000003", "#W1000004", "#W1000005"):
        ask = REASON_ASK.replace("#W2832706", order)
        message = _drive(f"Pause order {order} (status: active).", strategy, [("user", "Hi"), ("agent", ask)]).message
        picks[order] = "travelling" if "travelling" in message else "moving" if "moving" in message else message
        again = _drive(f"Pause order {order} (status: active).", strategy, [("user", "Hi"), ("agent", ask)]).message
        assert again == message  # a rerun answers the same
    assert set(picks.values()) == {"travelling", "moving"}, picks


def test_driver_gives_the_strategy_values_declines_and_stops_on_refusal() -> None:
    objective = "Pause order #W1000001 (status: active) — declining at the confirmation."
    strategy = f"Identify with the email a.b@example.com. Reason: '{OWN_REASON}'. Confirmation: no."
    assert OWN_REASON in _drive(objective, strategy, [("user", "Hi"), ("agent", REASON_ASK)]).message
    assert _drive(objective, strategy, [("user", "Hi"), ("agent", CONFIRM_ASK)]).message.lower().startswith("no")
    refused = _drive("Pause order #W1000002 (status: shipped).", strategy, [("user", "Hi"), ("agent", REFUSAL)])
    assert refused.status == "cannot" and refused.message == ""


def test_driver_uses_the_wrong_details_the_strategy_names() -> None:
    out = _drive("Pause order #W1000001 (status: active) — with a wrong zip code.",
                 "Identify with the name Ann Bee and the wrong zip code 54321.", [])
    assert "Ann Bee" in out.message and "54321" in out.message and "12345" not in out.message


def test_driver_picks_the_new_item_from_the_options_the_agent_lists() -> None:
    options = ("Which option would you like instead of your Lamp (item 1000000003)? Available options: "
               "brass ($55.00, item 1000000009); steel ($60.00, item 1000000008).")
    out = _drive("Refund an item of order #W1000002 (status: shipped).", "Identify with the email a.b@example.com.",
                 [("user", "Hi"), ("agent", options)])
    assert "item 1000000003" in out.message and "1000000009" in out.message


def test_driver_ends_when_the_agent_repeats_itself() -> None:
    same = "Order #W1000001 is already paid with paypal_1; the new payment method must be a different one."
    out = _drive("Modify the payment method of order #W1000001 (status: active).", "Identify with the email a.b@example.com.",
                 [("user", "a"), ("agent", same), ("user", "b"), ("agent", same)])
    assert out.status == "cannot"


def test_driver_fills_in_an_order_in_the_status_an_objective_names() -> None:
    out = _drive("Find out whether the agent lets me pause a shipped order.",
                 "Be a cooperative customer; identify with the email a.b@example.com.", [])
    assert "#W1000002" in out.message and "a.b@example.com" in out.message


def test_the_open_session_then_asks_for_a_kind_of_thing_the_agent_did_not_name() -> None:
    first = _drive(OPEN, "Ask one open question about what the agent can do; identify when asked.", [])
    said = [("user", first.message), ("agent", CAN_DO)]
    beyond = _drive(OPEN, "", said)
    # asked by an identified user, about an item of the user's own orders (from the tester facts)
    assert beyond.status == "continue" and "a.b@example.com" in beyond.message
    assert "new order" in beyond.message and "1000000001" in beyond.message
    # an agent that says it takes new orders is not asked for one; a reply naming no actions neither
    buys = "Hello! I can pause or resume active orders, place new orders, and answer questions about your account."
    assert "new order" not in (_drive(OPEN, "", [("user", first.message), ("agent", buys)]).message or "")
    assert _drive(OPEN, "", [("user", first.message), ("agent", "Hello! How can I help?")]).status == "cannot"


def test_the_open_session_asks_requests_next_to_the_stated_actions_up_to_its_limit() -> None:
    """Issue 28 item 2: after the capabilities, the generic request kinds the agent did not name
    (adding to an existing order, faster delivery, ...), each once, on an order in the state the
    agent named for a change; then the session ends."""
    turns = [("user", "What can you do?"), ("agent", CAN_DO)]
    asked: list[str] = []
    while (out := _drive(OPEN, "", turns)).status == "continue":
        asked.append(out.message or "")
        turns += [("user", out.message or ""), ("agent", "Sorry, I cannot help with that.")]
    assert out.status == "met" and len(asked) == objectives.OUTSIDE_PER_SESSION
    assert any("one more of item 1000000001 into order #W1000001" in m for m in asked)  # the active order
    assert len(set(asked)) == len(asked)


def test_an_offered_next_step_is_taken_up_once_and_ends_the_session() -> None:
    """Issue 28 item 2: a refusal that offers a next step (a transfer) is answered by taking it up."""
    refusal = "Sorry, that is outside what I can do. If you need help with it, I can transfer you to a human agent."
    turns = [("user", "What can you do?"), ("agent", CAN_DO)]
    while (out := _drive(OPEN, "", turns)).message and not out.message.startswith("Yes"):
        turns += [("user", out.message), ("agent", refusal)]  # every request asked first
    assert len(turns) == 2 + 2 * objectives.OUTSIDE_PER_SESSION
    assert out.message == "Yes, please transfer me to a human agent."
    done = _drive(OPEN, "", [*turns, ("user", out.message), ("agent", "You are now with a human agent.")])
    assert done.status == "met"
    assert observation.offered_step("Would you like me to connect you with billing? I can't do it.") == \
        "Yes, please connect me with billing."
    assert observation.offered_step("I can transfer you to a human agent.") == ""  # no refusal: nothing to take up


def test_the_scope_question_takes_no_discovery_session() -> None:
    earlier = [SessionSummary(objective=OPEN, strategy="", ended_by="met", last_agent_reply=CAN_DO)]
    traces = [_trace(1, OPEN, ("user", "What can you do?"), ("agent", CAN_DO))]
    assert not _plan(2, earlier, traces).objective.startswith("Ask")
