"""The order in which the offline planner works through its candidate objectives.

Value situations come from the details the agent asked for (see :mod:`adat_offline.objectives`).
:func:`next_plan` interleaves the three families (action × state, identity, value) so that a
short discovery still touches each, and skips what an earlier session pursued.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from adat_offline import language as lang
from adat_offline.facts import Account, OrderFact, TesterFacts
from adat_offline.objectives import (
    NEW_ADDRESS,
    OPEN,
    OWN_REASON,
    STREET_ONLY,
    UNKNOWN_PAYMENT,
    Plan,
    address_without,
    expand,
    grid,
    identify,
    identities,
    objective_for,
    states_for,
)
from adat_offline.observation import Action, Observation

Case = tuple[str, str]  # (situation, strategy sentence)
CaseFn = Callable[[Observation, TesterFacts, Account, OrderFact], "Case | None"]


def values(obs: Observation, facts: TesterFacts, turn: int) -> list[Plan]:
    """For each detail the agent asked for with an action: the values around its conditions.
    Each value case takes the first order (in the state the agent named for the action, accounts
    in rotation from ``turn``) whose account and facts support it."""
    per_action: list[list[Plan]] = []
    for action in expand(obs.actions, facts):
        plans: list[Plan] = []
        per_action.append(plans)
        states = states_for(action, facts)
        if action.target == "account":
            if obs.asked_for(action.key, "address") and facts.accounts:
                account = facts.accounts[turn % len(facts.accounts)]
                plans.append(Plan(objective_for(action, None, "with an address of the street line only"),
                                  f"State the request first. {identify(account, 'name')} Address: {STREET_ONLY}."))
            continue
        if action.target == "question" or not states:
            continue
        pool = [(a, o) for a, o in facts.all_orders() if o.status == states[0]
                and (o.items or action.target != "item")]
        pool = pool[turn % len(pool):] + pool[: turn % len(pool)] if pool else []
        for case_fn in _cases_for(obs, action, facts):
            hit = next(((a, o, c) for a, o in pool if (c := case_fn(obs, facts, a, o)) is not None), None)
            if hit is not None:
                account, order, (situation, strategy) = hit
                plans.append(Plan(objective_for(action, order, situation), f"{identify(account)} {strategy}"))
    # one value case of every action before the second of any
    return [p for level in range(max(map(len, per_action), default=0)) for plans in per_action
            if level < len(plans) for p in plans[level:level + 1]]


def _cases_for(obs: Observation, action: Action, facts: TesterFacts) -> list[CaseFn]:
    """The value cases of the details the agent asked for with ``action``, the side a stated
    condition leaves out (a value outside the options offered, the lowest balance, ...) first."""
    asked = obs.asked.get(action.key, set())
    details: list[list[CaseFn]] = []
    if "reason" in asked:
        details.append([_reason(v) for v in (OWN_REASON, *obs.options.get(action.key, [])[:2])])
    if "item" in asked or action.attribute == "items":
        # a new option is asked for only where the agent asked which option the user wants
        items: list[CaseFn] = ([_other_product, _unlisted_option, _same_item, _item_elsewhere, _two_items]
                               if "option" in asked else [_item_elsewhere, _two_items])
        details.append(items)
    if "payment" in asked or action.attribute == "payment method":
        payment: list[CaseFn] = [_lowest_gift_card, _other_method, _paid_with, _not_on_file]
        # The agent named fewer methods than the user has on file: one it left out comes first.
        details.append([payment[1], payment[0], *payment[2:]] if offered_fewer(obs, action, facts) else payment)
    if ("address" in asked or action.attribute == "shipping address") and action.attribute != "items":
        # boundary value analysis of a multi-part requirement: each part omitted alone too
        details.append([_street_only, _omit_part("zip code"), _full_address, _omit_part("city")])
    # the first case of every detail before the second of any; declining the confirmation, a step
    # every change shares, after the values of the action's own details
    cases = [d[level] for level in range(max(map(len, details), default=0)) for d in details if level < len(d)]
    return [*cases, _decline] if "confirm" in asked else cases


def offered_fewer(obs: Observation, action: Action, facts: TesterFacts) -> bool:
    """Whether a payment question of ``action`` offered only some of the methods the user has on
    file (its options exclude the others: a value outside them is the other side)."""
    for offered in obs.payment_offers.get(action.key, []):
        holder = next((a for a in facts.accounts if offered and offered <= set(a.payment_methods)), None)
        if holder is not None and not set(holder.payment_methods) <= offered:
            return True
    return False


def _street_only(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    return "with an address of the street line only", f"Address: {STREET_ONLY}."


def _full_address(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    return "with a complete new address", f"Address: {NEW_ADDRESS}."


def _omit_part(part: str) -> CaseFn:
    """The complete new address with one part left out: just outside a requirement of several
    parts, where only that part decides (issue 28 item 1)."""
    def case(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
        return f"with a new address missing only its {part}", f"Address: {address_without(part)}."
    return case


def _decline(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    return "declining at the confirmation", "Confirmation: no."


def _reason(value: str) -> CaseFn:
    def case(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
        return f"with the reason '{value}'", f"Reason: '{value}'."
    return case


def _lowest_gift_card(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    """The gift card of lowest known balance among all accounts, when this account holds it."""
    known = [(bal, gift) for acc in facts.accounts for gift, bal in acc.gift_card_balances.items()]
    gift = min(known)[1] if known else ""
    if gift and gift in account.payment_methods and gift != order.paid_with:
        return f"with the gift card {gift} of lowest balance", f"Payment: {gift}."
    return None


def _other_method(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    other = account.other_payment(order)
    return (f"with the payment method {other}, which did not pay the order", f"Payment: {other}.") if other else None


def _paid_with(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    """The method that paid the order; not a gift card, whose balance could decide the test instead."""
    return (f"with the payment method that paid it ({order.paid_with})", f"Payment: {order.paid_with}.") \
        if order.paid_with and order.paid_with not in account.gift_card_balances \
        and not order.paid_with.startswith("gift_card") else None


def _not_on_file(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    return "with a payment method not on file", f"Payment: {UNKNOWN_PAYMENT}."


def _other_product(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    mine = order.items
    described = facts.items.get(mine[0], "") if mine else ""
    foreign = next((i for o in account.orders if o is not order for i in o.items
                    if facts.items.get(i) and facts.items.get(i) != described), "")
    if mine and described and foreign:
        return (f"with item {mine[0]} for item {foreign} of another kind of product",
                f"Item: {mine[0]}. New item: {foreign}.")
    return None


def _same_item(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    """The very same item as the new one: one the agent listed as available, so that
    availability is not what decides the test."""
    same = next((i for i in order.items if i in obs.available_items), "")
    return (f"with item {same} for the very same item", f"Item: {same}. New item: {same}.") if same else None


def _unlisted_option(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    """A new item of the same kind of product (from the tester facts) that the agent left out when
    it listed that product's available options: availability is what this case tests."""
    for mine in order.items:
        described = facts.items.get(mine, "")
        listed = [ids for said, ids in obs.listings if described and described.lower() in said]
        if not listed:
            continue
        shown = {i for ids in listed for i in ids}
        other = next((i for _, o in facts.all_orders() for i in o.items
                      if i != mine and facts.items.get(i) == described and i not in shown), "")
        if other:
            return (f"with item {mine} for item {other} of that kind, which the agent did not list as available",
                    f"Item: {mine}. New item: {other}.")
    return None


def _item_elsewhere(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    elsewhere = next((i for o in account.orders if o is not order for i in o.items if i not in order.items), "")
    return (f"with item {elsewhere}, which is not in the order", f"Item: {elsewhere}.") if elsewhere else None


def _two_items(obs: Observation, facts: TesterFacts, account: Account, order: OrderFact) -> Case | None:
    mine = order.items
    return ("for two items at once", f"Item: {mine[0]} and {mine[1]}.") if len(mine) >= 2 else None


FAMILIES = (grid, identities, values)


def signature(objective: str) -> str:
    """An objective without its ids: two sessions on different orders in the same state, the
    same action and situation pursue the same thing."""
    bare = lang.PAYMENT_ID.sub("", lang.ITEM_ID.sub("", lang.ORDER_ID.sub("", objective)))
    return re.sub(r"\s+", " ", bare).strip()


def next_plan(session_no: int, obs: Observation, facts: TesterFacts, covered_objectives: list[str]) -> Plan | None:
    """The next objective: the open question first, then the families in turn; None when done."""
    covered = {signature(o) for o in covered_objectives}
    if OPEN not in covered or not obs.actions:
        return Plan(OPEN, "Ask one open question about what the agent can do; identify when asked."
                    if OPEN not in covered else "Ask again, in other words, what the agent can do for you.")
    turn = session_no - 1
    queues = [[p for p in family(obs, facts, turn) if signature(p.objective) not in covered] for family in FAMILIES]
    for offset in range(len(queues)):
        queue = queues[(turn + offset) % len(queues)]
        if queue:
            return queue[0]
    return None
