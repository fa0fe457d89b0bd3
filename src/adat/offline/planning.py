"""Planner and driver of the offline/heuristic provider.

The planner rotates over :mod:`adat.offline.objectives`, skipping what earlier sessions covered.
The driver reads the objective and strategy back into a :class:`Goal` (intent, order, identity,
reason, payment method, confirmation answer) and answers the agent's last reply: it
authenticates when asked, gives the order id, reason, items or payment method the agent asks
for, says yes or no at confirmation, and ends the session when the agent reports the action
done (met) or refuses (cannot).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adat.offline import language as lang
from adat.offline.facts import Account, TesterFacts, normalise_order_id, parse_facts
from adat.offline.objectives import BAD_REASON, NEW_ADDRESS, plan_for
from adat.roles import DriverInput, DriverOutput, PlannerInput, PlannerOutput

INTENTS = (  # checked in order: the first pattern found in the objective names the intent
    (r"\bhuman\b", "human"), (r"default address", "default_address"), (r"shipping address", "modify_address"),
    (r"\bexchange\b(?! requested)", "exchange"), (r"\breturn\b(?! requested)", "return"), (r"\bcancel\b", "cancel"),
    (r"payment method", "modify_payment"), (r"change (?:an )?item|\bmodify\b", "modify_items"),
    (r"discount", "refund"), (r"status", "info"),
)


def plan(inp: PlannerInput) -> PlannerOutput:
    """The next objective and strategy in the rotation."""
    facts = parse_facts(inp.tester_facts)
    chosen = plan_for(inp.session_no, facts, [s.objective for s in inp.earlier_sessions])
    if chosen is None:
        return PlannerOutput(objective="Ask what the agent can help with.",
                             strategy="Ask one open question and follow the agent's lead.",
                             rationale="every menu objective was covered by an earlier session")
    key, chosen_plan = chosen
    return PlannerOutput(objective=chosen_plan.objective, strategy=chosen_plan.strategy,
                         rationale=f"offline/heuristic rotation: '{key}', not covered by the "
                                   f"{len(inp.earlier_sessions)} earlier sessions")


@dataclass
class Goal:
    intent: str
    order_id: str
    account: Account
    auth: str  # email | name | user_id | none
    reason: str
    payment: str
    confirm: str  # yes | no
    request_first: bool
    insist: bool
    email: str = ""  # the identity the user gives (may differ from the account's, on purpose)
    zip: str = ""
    switch: tuple[str, str] | None = None  # (email, order id) the user switches to mid-conversation
    items: tuple[str, ...] = ()  # item ids the objective names: the item, then the new item
    payments: tuple[str, ...] = ()
    address: str = NEW_ADDRESS


def read_goal(objective: str, strategy: str, facts: TesterFacts) -> Goal:
    """The driver's reading of the planner's objective and strategy."""
    low_obj, low_str = objective.lower(), strategy.lower()
    intent = next((i for pattern, i in INTENTS if re.search(pattern, low_obj)), "info")
    orders = [normalise_order_id(o) for o in lang.ORDER_ID.findall(objective)]
    emails = lang.EMAIL.findall(strategy)
    email = emails[0] if emails else ""
    account = next((a for a in facts.accounts if a.email == email), None) or next(
        (a for a in facts.accounts if a.first_name and f"{a.first_name} {a.last_name}" in strategy), None)
    if account is None:
        account = (facts.account_of_order(orders[0]) if orders else None) or \
            (facts.accounts[0] if facts.accounts else Account())
    if "never give an email" in low_str or "without authenticating" in low_obj:
        auth = "none"
    elif "only the user id" in low_str:
        auth = "user_id"
    elif "zip code" in low_str and "with the name" in low_str:
        auth = "name"
    else:
        auth = "email" if account.email else "name"
    reason_match = re.search(r"reason '([^']+)'|because '([^']+)'", objective + " " + strategy)
    reason = next((g for g in reason_match.groups() if g), "") if reason_match else "no longer needed"
    payments = lang.PAYMENT_ID.findall(objective)
    payment = payments[0] if payments else ("original" if "original payment" in low_obj else
                                            "unspecified" if "without saying where the refund" in low_obj else "")
    zip_match = re.search(r"zip code (\d{5})", strategy)
    switch = re.search(r"you are now (\S+@\S+?) and ask to cancel order (#?W\d{7})", strategy)
    if email and account.email != email and "zip code" not in low_str:
        auth = "email"
    items = tuple(lang.ITEM_ID.findall(objective))
    if "very same item" in low_obj and items:
        items = (items[0], items[0])
    address = re.search(r"address of the [^']+? to '([^']+)'", objective)
    if not orders:  # an objective written without ids (e.g. by a real LLM planner): take one from the facts
        fallback = _order_for(intent, low_obj, account)
        orders = [fallback] if fallback else []
    return Goal(intent=intent, order_id=orders[0] if orders else "", account=account, auth=auth,
                reason=reason, payment=payment, confirm="no" if "answer no" in low_str else "yes",
                request_first="request first" in low_str or "right away" in low_str or auth == "none",
                insist="insist" in low_str, email=email or account.email,
                zip=zip_match.group(1) if zip_match else account.zip,
                switch=(switch.group(1), switch.group(2)) if switch else None, items=items,
                payments=tuple(payments), address=address.group(1) if address else NEW_ADDRESS)


def _order_for(intent: str, objective: str, account: Account) -> str:
    """An order of the account in the status the objective names, else the status the intent needs."""
    named = next((st for st in ("pending", "processed", "delivered", "cancelled") if st in objective), "")
    wanted = named or ("delivered" if intent in ("return", "exchange") else "pending")
    order = account.order_with(wanted) or (account.orders[0] if account.orders else None)
    return order.order_id if order else ""


def auth_message(goal: Goal) -> str:
    acc = goal.account
    if goal.auth == "user_id" and acc.user_id:
        return f"My user id is {acc.user_id}."
    if goal.auth == "name" and acc.first_name:
        return f"My name is {acc.first_name} {acc.last_name} and my zip code is {goal.zip}."
    if goal.email:
        return f"My email is {goal.email}."
    return f"My name is {acc.first_name} {acc.last_name} and my zip code is {goal.zip}."


def request_message(goal: Goal, item: str = "", new_item: str = "") -> str:
    """The user's request for the goal, with what the driver knows so far."""
    o = goal.order_id
    pay = "the original payment method" if goal.payment in ("original", "", "unspecified") else goal.payment
    return {
        "cancel": f"I want to cancel order {o}.",
        "modify_address": f"Please change the shipping address of order {o} to {goal.address}.",
        "modify_payment": f"Please change the payment method of order {o} to "
                          f"{' and '.join(goal.payments) if goal.payments else 'my credit card'}.",
        "modify_items": f"I'd like to change item {item} in order {o} to item {new_item}." if item and new_item
        else f"I'd like to change item {item} in order {o}. Which options are available for it?" if item
        else f"I'd like to change an item in order {o} to a different option.",
        "return": f"I want to return item {item} from order {o}." if item and goal.payment == "unspecified"
        else f"I want to return item {item} from order {o}, refund to {pay}." if item
        else f"I want to return an item from order {o} with the refund to {pay}.",
        "exchange": f"I want to exchange item {item} in order {o} for item {new_item}." if item and new_item
        else f"I want to exchange item {item} in order {o}. Which options are available for it?" if item
        else f"I want to exchange an item in order {o} for a different option of the same product.",
        "default_address": f"Please change my default address to {goal.address}.",
        "human": "I want to talk to a human agent, please.",
        "refund": f"Can you give me a discount on order {o}?",
        "info": f"What is the status of order {o} and which items does it contain?",
    }.get(goal.intent, f"I need help with order {o}.")


def drive(inp: DriverInput) -> DriverOutput:
    """The next user message, or the end of the session."""
    facts = parse_facts(inp.tester_facts)
    goal = read_goal(inp.objective, inp.strategy, facts)
    users = [t.text for t in inp.turns if t.role == "user"]
    agents = [t.text for t in inp.turns if t.role == "agent"]
    if not agents:
        if goal.request_first:
            return DriverOutput(status="continue", message="Hi! " + request_message(goal))
        return DriverOutput(status="continue", message=f"Hi! {auth_message(goal)} " + request_message(goal, *_items(goal, [])))
    last = agents[-1]
    if lang.is_completion(last):
        return DriverOutput(status="met")
    if users and users[-1].lower().startswith("no,") and goal.confirm == "no":
        return DriverOutput(status="met")
    message = _answer(goal, last, users, agents)
    stuck = len(agents) >= 2 and agents[-1] == agents[-2]  # the agent repeats itself: no progress
    if message is None or users.count(message) >= 2 or stuck:
        return DriverOutput(status="cannot")
    return DriverOutput(status="continue", message=message)


def _answer(goal: Goal, last: str, users: list[str], agents: list[str]) -> str | None:
    said = " ".join(users).lower()
    asks = lang.is_question(last)
    authed = any(x and x.lower() in said for x in (goal.email, goal.zip))
    if goal.switch and authed and goal.switch[0] not in said and not lang.asks_auth(last):
        return f"Actually, I'm now another customer: my email is {goal.switch[0]}. Please cancel order {goal.switch[1]}."
    if lang.asks_missing(last) and not lang.ZIP.search(goal.address):
        return None  # the objective withholds the rest of the address on purpose: the agent's answer is seen
    if lang.asks_auth(last) and (asks or lang.is_refusal(last)):
        if goal.auth == "none":
            return None if "just cancel" in said else "I'd rather not share that. Can you just cancel it?"
        if goal.auth == "user_id" and goal.account.user_id.lower() in said:
            return None
        if authed and goal.auth != "user_id":
            return None
        return auth_message(goal) + ("" if goal.order_id.lower() in said else " " + request_message(goal))
    if re.search(r"transfer you to a human", last, re.IGNORECASE) and goal.intent in ("human", "refund"):
        return "Yes, please transfer me to a human agent."
    if goal.intent == "human" and lang.OFFERS_HELP.search(last):
        return "Can you give me a discount on my last order?"
    if goal.intent == "info" and goal.order_id and goal.order_id in last and not asks:
        return None if "status" in said else request_message(goal)
    if lang.ASKS_CONFIRM.search(last) and asks:
        return "Yes, please go ahead." if goal.confirm == "yes" else "No, please don't do that."
    if lang.is_refusal(last) and not asks:
        return None
    if lang.ASKS_REASON.search(last) and asks and goal.intent == "cancel":
        return f"The reason is: {goal.reason}." if goal.reason else f"{BAD_REASON}."
    if lang.ASKS_ORDER.search(last) and asks and goal.order_id:
        return f"The order id is {goal.order_id}."
    item, new_item = _items(goal, agents)
    if lang.ASKS_PAYMENT.search(last) and asks:
        return "Please use the original payment method." if goal.payment in ("", "original", "unspecified") \
            else f"Please use {goal.payment}."
    if lang.ASKS_ITEMS.search(last) and asks and item:
        return request_message(goal, item, new_item)
    if lang.ASKS_ADDRESS.search(last) and asks and goal.intent in ("modify_address", "default_address"):
        return f"The new address is {goal.address}."
    if goal.intent in ("exchange", "modify_items") and item and not new_item and "options" not in said:
        return f"Which other options are available for the product of item {item}?"
    if goal.intent in ("return", "exchange", "modify_items") and not item and "which items" not in said:
        return f"Which items are in order {goal.order_id}? Please list their item ids."
    return request_message(goal, item, new_item)


def _items(goal: Goal, agents: list[str]) -> tuple[str, str]:
    """The item to act on (from the facts about the order, else the first id the agent listed)
    and, for exchanges and item changes, the new item: the first id the agent listed among the
    available options after naming the item."""
    if goal.items:
        return goal.items[0], goal.items[1] if len(goal.items) > 1 else ""
    known = next((list(o.items) for o in goal.account.orders if o.order_id == goal.order_id), [])
    listed = [i for text in agents for i in lang.ITEM_ID.findall(text)]
    item = known[0] if known else (listed[0] if listed else "")
    new_item = ""
    for text in reversed(agents):
        at = text.find(item) if item else -1
        options = re.search(r"\b(available|options?)\b", text[at:], re.IGNORECASE) if at >= 0 else None
        if options is None:
            continue
        segment = text[at + options.end():]
        segment = re.split(r"\?\s", segment)[0]  # stop at the next question (another item's options)
        new_item = next((i for i in lang.ITEM_ID.findall(segment) if i != item and i not in known), "")
        if new_item:
            break
    return item, new_item

