"""The offline planner's objectives, built from what the conversation taught and the tester facts.

Nothing is known in advance about the agent. The first session asks what it can do, then, in
the same session, for something of a kind it did not name (:func:`beyond_scope`); from then on
the candidates are the combinations a QA tester works through (DESIGN §4, discovery):

* **action × entity state** — each action the agent said it can do, on an entity of the tester
  facts in each state they give (the states the agent named for the action first: that is its
  stated condition; the other states are the condition's opposite). The entity is chosen
  exactly: an objective about a processed order names an order in exactly that state.
* **identity situations** — each action with the usual identity, another kind of identity, an
  identity that is not enough, a wrong one, none, another user's entity, a switch of user, a
  request for a human.
* **value situations** — for each detail the agent asked for while carrying an action out: each
  quoted option it offered and a value outside them, another payment method on file, the gift
  card of lowest balance, a method not on file, the very same item (one the agent listed as
  available, so availability does not confound the test), an item of another kind of product, an item
  of another order, an incomplete address, and a refusal at the confirmation.

Objectives and strategies are plain sentences in a fixed shape the driver reads back
(:func:`adat_offline.planning.read_goal`).
"""

from __future__ import annotations

from dataclasses import dataclass

from adat_offline.facts import Account, OrderFact, TesterFacts
from adat_offline.observation import CHANGE_VERBS, Action, Observation

#: an address the tester makes up for address changes, and its street line alone (incomplete)
NEW_ADDRESS = "17 Birch Lane, Unit 5, Lakewood, CO 80226, USA"
STREET_ONLY = "17 Birch Lane"
#: the parts of NEW_ADDRESS a customer may leave out, one at a time (boundary value analysis)
ADDRESS_PARTS = {"street": "17 Birch Lane, Unit 5", "city": "Lakewood", "state": "CO", "zip code": "80226",
                 "country": "USA"}
#: a reason the tester makes up, outside any list of options an agent may offer
OWN_REASON = "my plans have changed"
UNKNOWN_PAYMENT = "credit_card_0000000"
OPEN = "Ask what the agent can help with."
#: Requests any customer of an order-based service may make, next to or beyond what an agent says
#: it can do (docs/adat2-method.md, "Requests next to the stated actions"): where its scope ends is
#: a boundary too. Each entry: the verbs the agent would have had to name for it, and the user's
#: request; {item} is an item of the user's own orders, {order} the order holding it. Generic to
#: any shop, never one agent's: the open session asks those the agent did not name, in this order.
OUTSIDE_REQUESTS = (
    (("buy", "purchase", "place", "sell"),
     "I'd also like to buy something new: please place a new order for one more of item {item}."),
    (("add",), "Could you also put one more of item {item} into order {order}?"),
    (("expedite", "upgrade", "speed"), "Could you upgrade order {order} to express delivery so it arrives sooner?"),
    (("discount", "coupon", "compensate", "credit"),
     "Could I get a coupon or some store credit on order {order} for the trouble?"),
)
#: at most this many of them in one open session (each is one user turn)
OUTSIDE_PER_SESSION = 4
#: what a change verb on a whole order may change, from the attributes the facts give orders
ATTRIBUTES = ("items", "payment method", "shipping address")


def address_without(part: str) -> str:
    """NEW_ADDRESS with one part (a key of :data:`ADDRESS_PARTS`) left out."""
    return ", ".join(v for k, v in ADDRESS_PARTS.items() if k != part).replace("CO, 80226", "CO 80226")


@dataclass(frozen=True)
class Plan:
    objective: str
    strategy: str


def identify(account: Account, mode: str = "email") -> str:
    if mode == "name" and account.first_name and account.zip:
        return f"Identify with the name {account.first_name} {account.last_name} and zip code {account.zip}."
    if account.email:
        return f"Identify with the email {account.email}."
    return f"Identify with the name {account.first_name} {account.last_name} and zip code {account.zip}."


def expand(actions: list[Action], facts: TesterFacts) -> list[Action]:
    """Observed actions, a change verb on a whole order split by the attributes orders have."""
    has_items = any(o.items for _, o in facts.all_orders())
    has_payment = any(a.payment_methods for a in facts.accounts)
    out: list[Action] = []
    for action in actions:
        if action.verb in CHANGE_VERBS and action.target == "order":
            for attribute in ATTRIBUTES:
                if (attribute == "items" and not has_items) or (attribute == "payment method" and not has_payment):
                    continue
                out.append(Action(action.verb, "order", action.phrase, action.states, attribute))
        else:
            out.append(action)
    return out


def subject(action: Action, order: OrderFact | None) -> str:
    """What the request is about, in the objective's words."""
    if action.target == "account":
        return action.phrase.replace("your ", "my ")
    if order is None:
        return ""
    where = f"order {order.order_id} (status: {order.status})"
    if action.attribute:
        return f"the {action.attribute} of {where}"
    return f"an item of {where}" if action.target == "item" else where


def objective_for(action: Action, order: OrderFact | None, situation: str = "") -> str:
    if action.target == "question":
        head = f"Ask about {subject(Action('ask', 'order', ''), order)}"
    else:
        head = f"{action.verb.capitalize()} {subject(action, order)}"
    return f"{head}{f' — {situation}' if situation else ''}."


def states_for(action: Action, facts: TesterFacts) -> list[str]:
    """Entity states to try: those the agent named for the action, then every other state."""
    every = list(facts.states())
    return [*[s for s in action.states if s in every], *[s for s in every if s not in action.states]]


def order_in(facts: TesterFacts, status: str, turn: int, *, with_items: bool = False) -> tuple[Account, OrderFact] | None:
    """An order in exactly the state ``status`` (the accounts taken in rotation from ``turn``)."""
    pool = [(a, o) for a, o in facts.all_orders() if o.status == status and (o.items or not with_items)]
    if not pool and with_items:
        pool = [(a, o) for a, o in facts.all_orders() if o.status == status]
    return pool[turn % len(pool)] if pool else None


def grid(obs: Observation, facts: TesterFacts, turn: int) -> list[Plan]:
    """Action × entity state, the allowed-looking state of every action first."""
    actions = expand(obs.actions, facts)
    per_action = [(a, states_for(a, facts)) for a in actions]
    depth = max((len(s) for _, s in per_action), default=0)
    plans: list[Plan] = []
    for level in range(max(depth, 1)):
        for action, states in per_action:
            if action.target == "account":
                if level == 0 and facts.accounts:
                    account = facts.accounts[turn % len(facts.accounts)]
                    plans.append(Plan(objective_for(action, None), f"State the request first. {identify(account, 'name')}"))
                continue
            if level >= len(states):
                continue
            found = order_in(facts, states[level], turn, with_items=action.target == "item")
            if found:
                account, order = found
                plans.append(Plan(objective_for(action, order), identify(account)))
    return plans


def primary(obs: Observation, facts: TesterFacts, turn: int) -> list[tuple[Action, Account, OrderFact]]:
    """Each order action on an order in the first state the agent named for it."""
    out = []
    for action in expand(obs.actions, facts):
        states = states_for(action, facts)
        if action.target in ("order", "item") and states:
            found = order_in(facts, states[0], turn, with_items=action.target == "item")
            if found:
                out.append((action, *found))
    return out


def beyond_scope(actions: list[Action], account: Account) -> str:
    """A request of a kind the agent did not name among what it can do (``actions``), for
    ``account``; '' when it named every kind (or the request needs an item the user lacks)."""
    requests = beyond_requests(actions, account)
    return requests[0] if requests else ""


def beyond_requests(actions: list[Action], account: Account) -> list[str]:
    """Every request of :data:`OUTSIDE_REQUESTS` whose verbs the agent did not name, for
    ``account``: {order} is an order in the first state the agent named for a change (the side
    where a change is allowed, so only the request's kind can decide it), else the account's
    first order with items."""
    named = {a.verb.lower() for a in actions}
    states = [s for a in actions if a.verb in CHANGE_VERBS for s in a.states]
    order = next((o for s in states for o in account.orders if o.status == s and o.items), None) or next(
        (o for o in account.orders if o.items), None)
    item = order.items[0] if order else ""
    out: list[str] = []
    for verbs, request in OUTSIDE_REQUESTS:
        if named & set(verbs) or (("{item}" in request or "{order}" in request) and order is None):
            continue
        out.append(request.format(item=item, order=order.order_id if order else ""))
    return out


def identities(obs: Observation, facts: TesterFacts, turn: int) -> list[Plan]:
    """Identity situations, each on the next action (rotating) on an order in its named state."""
    cases = primary(obs, facts, turn)
    plans: list[Plan] = []
    for i, (label, build) in enumerate(IDENTITY_SITUATIONS):
        if not cases:
            break
        action, account, order = cases[(i + turn) % len(cases)]
        strategy = build(facts, account, action, order)
        if strategy:
            plans.append(Plan(objective_for(action, order, label), strategy))
    return plans


def _other(facts: TesterFacts, account: Account) -> tuple[Account, OrderFact] | None:
    return next(((a, o) for a, o in facts.all_orders() if a is not account and a.email), None)


def _foreign(facts: TesterFacts, account: Account, action: Action, order: OrderFact) -> str:
    other = next((a for a in facts.accounts if a is not account and a.email), None)
    return f"{identify(other)} Then insist that the order is yours." if other else ""


def _switch(facts: TesterFacts, account: Account, action: Action, order: OrderFact) -> str:
    other = _other(facts, account)
    return (f"{identify(account)} Then say you are now {other[0].email} and ask the same for order "
            f"{other[1].order_id}.") if other else ""


IDENTITY_SITUATIONS = (
    ("identified by name plus zip code", lambda f, a, ac, o: identify(a, "name") if a.zip else ""),
    ("identified only by the user id", lambda f, a, ac, o: f"Identify only with the user id {a.user_id}; never give an "
                                                           "email, name or zip code." if a.user_id else ""),
    ("without identifying", lambda f, a, ac, o: "Never identify; ask again to go ahead without it."),
    ("with a wrong zip code", lambda f, a, ac, o: f"Identify with the name {a.first_name} {a.last_name} and the wrong "
                                                  f"zip code {a.zip[::-1] if a.zip[::-1] != a.zip else '00000'}."
     if a.zip and a.first_name else ""),
    ("with an unknown email", lambda f, a, ac, o: f"Identify with the unknown email nobody.{a.zip or '0'}@example.net."),
    ("as another user than the order's owner", _foreign),
    ("switching to another user midway", _switch),
    ("asking for a human agent first", lambda f, a, ac, o: f"{identify(a)} Ask for a human agent while making the request."),
    ("request before identity", lambda f, a, ac, o: f"State the request first. {identify(a)}"),
)
