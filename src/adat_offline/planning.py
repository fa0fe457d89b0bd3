"""Planner and driver of the offline/heuristic provider.

The planner reads what the earlier discovery traces taught (:mod:`adat_offline.observation`)
and takes the next objective of :func:`adat_offline.plan_queue.next_plan`. The driver reads the
objective and strategy back into a :class:`Goal` (the action, the entity, the identity to give,
the values to give when asked) and answers the agent's last reply: it identifies when asked,
gives the detail the agent asks for (the value the strategy names, else the first option the
agent itself offered), says yes or no at confirmation, and ends the session when the agent
reports the action done (met) or turns it down (cannot). In the open session, once the agent has
said what it can do, the driver asks, identified, for something of a kind it did not name (where
its stated scope ends is a boundary too); that takes no discovery session of its own.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from adat.contracts.adat2_roles import (
    DriverInput,
    DriverOutput,
    PlannerInput,
    PlannerOutput,
    TraceView,
    TurnView,
)
from adat_offline import language as lang
from adat_offline.facts import Account, TesterFacts, normalise_order_id, parse_facts
from adat_offline.objectives import NEW_ADDRESS, OPEN, OUTSIDE_PER_SESSION, beyond_requests
from adat_offline.observation import OFFERED_STEP, QUOTED, key_of, observe, offered_step, parse_actions
from adat_offline.plan_queue import next_plan


def plan(inp: PlannerInput) -> PlannerOutput:
    """The next objective and strategy from what the earlier sessions showed."""
    facts = parse_facts(inp.tester_facts)
    seen = {t.trace_id for t in inp.earlier_traces}
    older = [TraceView(trace_id=f"summary-{i}", objective=s.objective, strategy=s.strategy,
                       turns=[TurnView(role="agent", text=s.last_agent_reply)] if s.last_agent_reply else [])
             for i, s in enumerate(inp.earlier_sessions)]
    traces = [*older, *(t for t in inp.earlier_traces if t.trace_id in seen)]
    obs = observe(traces, facts.states(), {t.trace_id: key_of(t.objective) for t in traces})
    chosen = next_plan(inp.session_no, obs, facts, [s.objective for s in inp.earlier_sessions])
    if chosen is None:
        return PlannerOutput(objective=OPEN, strategy="Ask again, in other words, what the agent can do for you.",
                             rationale="every combination learned so far was covered by an earlier session")
    return PlannerOutput(objective=chosen.objective, strategy=chosen.strategy,
                         rationale=f"offline/heuristic: from {len(obs.actions)} actions and {len(obs.conditions)} "
                                   f"conditions heard in {len(inp.earlier_sessions)} earlier sessions")


def _verb(objective: str) -> str:
    words = objective.split()
    return words[0].lower() if words else ""


@dataclass
class Goal:
    verb: str  # open | ask | the action's verb
    target: str  # open | question | order | item | account
    order_id: str
    account: Account
    auth: str  # email | name | user_id | none
    attribute: str = ""
    phrase: str = ""  # what an account-level action acts on ("my default address")
    email: str = ""
    zip: str = ""
    switch: tuple[str, str] | None = None  # (email, order id) the user switches to midway
    human: bool = False
    request_first: bool = False
    reason: str = ""
    payment: str = ""
    items: tuple[str, ...] = ()  # the items the user names
    new_item: str = ""
    address: str = NEW_ADDRESS
    confirm: str = "yes"


_ATTRIBUTE = re.compile(r"\bthe (items|payment method|shipping address) of order\b", re.I)


def read_goal(objective: str, strategy: str, facts: TesterFacts) -> Goal:
    """The driver's reading of the planner's objective and strategy."""
    verb = _verb(objective)
    orders = [normalise_order_id(o) for o in lang.ORDER_ID.findall(objective)]
    target = "open" if objective.startswith(OPEN[:12]) else "question" if verb == "ask" else \
        "item" if re.search(r"\ban item of order\b", objective) else \
        "order" if orders or re.search(r"\border\b", objective, re.I) else "account"
    emails = lang.EMAIL.findall(strategy)
    account = next((a for a in facts.accounts if a.email and a.email in emails), None) or next(
        (a for a in facts.accounts if a.first_name and f"{a.first_name} {a.last_name}" in strategy), None) or \
        (facts.account_of_order(orders[0]) if orders else None) or (facts.accounts[0] if facts.accounts else Account())
    if not orders and target not in ("open", "account"):
        fallback = _order_for(objective, account, facts)
        orders = [fallback] if fallback else []
    auth = "none" if "never identify" in strategy.lower() else "user_id" if "only with the user id" in strategy else \
        "name" if re.search(r"identify with the name", strategy, re.I) else "email"
    zip_code = re.search(r"zip code (\d{5})", strategy)
    switch = re.search(r"you are now (\S+@\S+?) and ask the same for order (#?W\d{7})", strategy)
    attribute = _ATTRIBUTE.search(objective)
    items = re.search(r"\bItem: (\d{10})(?: and (\d{10}))?", strategy)
    value = {k: (m.group(1) if (m := re.search(rf"\b{k}: '?([^'.]+(?:\.\d+)?[^'.]*)'?\.", strategy)) else "")
             for k in ("Reason", "Payment", "Address", "Confirmation")}
    new_item = re.search(r"\bNew item: (\d{10})", strategy)
    phrase = re.sub(r"^\w+\s+", "", objective.split(" — ")[0]).rstrip(".") if target == "account" else ""
    return Goal(verb=verb, target=target, order_id=orders[0] if orders else "", account=account, auth=auth,
                attribute=attribute.group(1).lower() if attribute else "", phrase=phrase,
                email=emails[0] if emails else account.email,
                zip=zip_code.group(1) if zip_code else account.zip,
                switch=(switch.group(1), normalise_order_id(switch.group(2))) if switch else None,
                human="human agent" in strategy, request_first="request first" in strategy.lower() or auth == "none",
                reason=value["Reason"], payment=value["Payment"], address=value["Address"] or NEW_ADDRESS,
                items=tuple(i for i in (items.groups() if items else ()) if i),
                new_item=new_item.group(1) if new_item else "",
                confirm="no" if value["Confirmation"].lower().startswith("no") else "yes")


def _order_for(objective: str, account: Account, facts: TesterFacts) -> str:
    """An order of the account in the status the objective names (an objective an LLM planner
    wrote without ids), else the account's first order."""
    low = objective.lower()
    states = sorted({o.status for _, o in facts.all_orders() if o.status}, key=len, reverse=True)
    named = next((st for st in states if re.search(rf"\b{re.escape(st)}\b", low)), "")
    order = (account.order_with(named) if named else None) or (account.orders[0] if account.orders else None)
    return order.order_id if order else ""


def auth_message(goal: Goal) -> str:
    acc = goal.account
    if goal.auth == "user_id" and acc.user_id:
        return f"My user id is {acc.user_id}."
    if goal.auth == "name" and acc.first_name:
        return f"I'm {acc.first_name} {acc.last_name}, zip code {goal.zip}."
    if goal.email:
        return f"My email is {goal.email}."
    return f"I'm {acc.first_name} {acc.last_name}, zip code {goal.zip}."


def request_message(goal: Goal, item: str = "", new_item: str = "") -> str:
    """The user's request for the goal, with what the driver knows so far."""
    o, verb = goal.order_id, goal.verb
    if goal.target == "open":
        return "What can you help me with?"
    if goal.target == "question":
        return f"Could you tell me the status of order {o} and what is in it?"
    if goal.target == "account":
        return f"I'd like to {verb} {goal.phrase}."
    if goal.attribute and (goal.attribute != "items" or not item):
        return f"I'd like to {verb} the {goal.attribute} of order {o}."
    if goal.target == "item" or goal.attribute == "items":
        named = " and ".join(goal.items) if len(goal.items) > 1 else item
        if named and new_item and len(goal.items) < 2:
            return f"For order {o}, I'd like to {verb} item {named}; the new item is {new_item}."
        return f"For order {o}, I'd like to {verb} item {named}." if named else f"I'd like to {verb} an item of order {o}."
    return f"I'd like to {verb} order {o}."


def drive(inp: DriverInput) -> DriverOutput:
    """The next user message, or the end of the session."""
    facts = parse_facts(inp.tester_facts)
    goal = read_goal(inp.objective, inp.strategy, facts)
    users = [t.text for t in inp.turns if t.role == "user"]
    agents = [t.text for t in inp.turns if t.role == "agent"]
    if not agents:
        opening = request_message(goal, *_items(goal, []))
        if goal.human:
            opening = f"Please get me a human agent. {opening}"
        if goal.request_first or goal.target == "open":
            return DriverOutput(status="continue", message=f"Hi! {opening}")
        return DriverOutput(status="continue", message=f"Hi! {auth_message(goal)} {opening}")
    last = agents[-1]
    if goal.target == "open" and (follow := _open_follow_up(goal, users, agents, facts)) is not None:
        return follow
    if lang.is_completion(last) or (goal.target == "open" and len(agents) >= 2):
        return DriverOutput(status="met")
    if users and users[-1].lower().startswith("no,") and goal.confirm == "no":
        return DriverOutput(status="met")
    message = _answer(goal, last, users, agents)
    stuck = len(agents) >= 2 and agents[-1] == agents[-2]  # the agent repeats itself: no progress
    if message is None or users.count(message) >= 2 or stuck:
        return DriverOutput(status="cannot")
    return DriverOutput(status="continue", message=message)


def _open_follow_up(goal: Goal, users: list[str], agents: list[str], facts: TesterFacts) -> DriverOutput | None:
    """The open session after the agent's first reply: where the scope it stated ends — requests
    of kinds it did not name (:data:`~adat_offline.objectives.OUTSIDE_REQUESTS`), asked by an
    identified user so that identity is not what decides them — and, once they are asked, the
    next step the last refusal offers (a transfer), taken up once, which ends the session. None when
    the agent's first reply lists nothing it can do (the driver answers it as any other)."""
    last = agents[-1]
    if any(OFFERED_STEP.search(a) for a in agents[:-1]) and any(u.startswith("Yes, please") for u in users):
        return DriverOutput(status="met")  # the offered step was taken up and answered
    actions = parse_actions(agents[0], facts.states())
    if not actions and len(agents) == 1:
        return None
    asked = [u for u in users if any(r in u for r in beyond_requests(actions, goal.account))]
    todo = [r for r in beyond_requests(actions, goal.account) if not any(r in u for u in users)] if actions else []
    if todo and len(asked) < OUTSIDE_PER_SESSION:
        said = " ".join(users)
        identity = "" if goal.email and goal.email in said else f"{auth_message(goal)} "
        return DriverOutput(status="continue", message=f"{identity}{todo[0]}")
    # every request asked: the step the last refusal offers, taken up (a transfer ends the session)
    step = offered_step(last) if len(agents) >= 2 else ""
    if step and step not in users:
        return DriverOutput(status="continue", message=step)
    return DriverOutput(status="met")


def _answer(goal: Goal, last: str, users: list[str], agents: list[str]) -> str | None:
    said = " ".join(users).lower()
    asks = lang.is_question(last)
    authed = any(x and x.lower() in said for x in (goal.email, goal.zip, goal.account.user_id))
    if goal.switch and authed and goal.switch[0] not in said and not lang.asks_auth(last):
        return f"Actually, I'm another customer now: my email is {goal.switch[0]}. " + \
            request_message(Goal(**{**goal.__dict__, "order_id": goal.switch[1], "items": ()}))
    if lang.asks_auth(last) and (asks or lang.is_refusal(last)):
        if goal.auth == "none":
            return None if "without it" in said else "I'd rather not share that. Can you go ahead without it?"
        if authed:
            return None  # the identity given was not enough: the agent's answer is seen
        return auth_message(goal) + ("" if not goal.order_id or goal.order_id.lower() in said
                                     else " " + request_message(goal))
    if goal.target == "open":
        return None
    if re.search(r"\btransfer", last, re.I) and asks and goal.human:
        return "Yes, please transfer me."
    if lang.ASKS_CONFIRM.search(last) and asks:
        return "Yes, please go ahead." if goal.confirm == "yes" else "No, please don't do that."
    if lang.refuses(last) and not asks:
        return None
    if goal.target == "question" and goal.order_id in last:
        return None
    return _detail(goal, last, agents, said) if asks else request_message(goal, *_items(goal, agents))


def _detail(goal: Goal, last: str, agents: list[str], said: str) -> str:
    """The answer to the agent's question for a detail of the request."""
    item, new_item = _items(goal, agents)
    if lang.ASKS_REASON.search(last):
        offered = [a or b for a, b in QUOTED.findall(last)]
        return f"The reason: {goal.reason or (each_choice(goal, offered) if offered else 'I do not need it anymore')}."
    if lang.ASKS_ORDER.search(last) and goal.order_id:
        return f"It's order {goal.order_id}."
    if lang.ASKS_PAYMENT.search(last):
        return f"Please use {goal.payment or _payment_choice(goal, last)}."
    if lang.ASKS_ITEMS.search(last) and item:
        return request_message(goal, item, new_item)
    if lang.ASKS_ADDRESS.search(last):
        return f"The new address is {goal.address}."
    if goal.target == "item" and item and not new_item and "options" not in said:
        return f"Which other options are there for item {item}?"
    return request_message(goal, item, new_item)


def each_choice(goal: Goal, options: list[str]) -> str:
    """A cooperative user's pick among the options the agent offered, when the plan fixes none.
    Each-choice coverage: the pick rotates with the request's order (a stable checksum, so a rerun
    picks the same), so across a suite every option is some test's answer, not only the first."""
    return options[zlib.crc32(goal.order_id.encode()) % len(options)]


def _payment_choice(goal: Goal, last: str) -> str:
    """A cooperative user's payment method: one the agent offered, not the one its question
    starts from ("instead of ...") and not the one that paid the order."""
    parts = lang.sentences(last)
    current = set(lang.PAYMENT_ID.findall(parts[0])) if len(parts) > 1 else set()
    paid = next((o.paid_with for o in goal.account.orders if o.order_id == goal.order_id), "")
    offered = [p for p in lang.PAYMENT_ID.findall(last) if p not in current and p != paid]
    return offered[0] if offered else "the original payment method"


def _items(goal: Goal, agents: list[str]) -> tuple[str, str]:
    """The item to act on (the strategy's, else from the facts about the order, else the first id
    the agent listed) and the new item: the strategy's, else the first id the agent listed among
    the available options after naming the item."""
    known = next((list(o.items) for o in goal.account.orders if o.order_id == goal.order_id), [])
    listed = [i for text in agents for i in lang.ITEM_ID.findall(text)]
    item = goal.items[0] if goal.items else known[0] if known else (listed[0] if listed else "")
    if goal.new_item:
        return item, goal.new_item
    for text in reversed(agents):
        at = text.find(item) if item else -1
        options = re.search(r"\b(available|options?)\b", text[at:], re.IGNORECASE) if at >= 0 else None
        if options is None:
            continue
        segment = re.split(r"\?\s", text[at + options.end():])[0]  # stop at the next question
        new_item = next((i for i in lang.ITEM_ID.findall(segment) if i != item and i not in known), "")
        if new_item:
            return item, new_item
    return item, ""
