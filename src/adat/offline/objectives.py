"""The offline planner's menu: what a retail customer-service QA tester probes in discovery.

Each entry writes a concrete objective and strategy from the tester facts (which account, which
order in which status, which payment method), in plain words the driver reads back. Entries
cover the tasks a retail agent is known to do (cancel, modify, return, exchange, default
address) on both sides of their usual conditions (order status, accepted reasons, payment
method, identity, confirmation), plus transfers and out-of-scope requests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adat.offline.facts import Account, OrderFact, TesterFacts

NEW_ADDRESS = "445 Maple Avenue, Apt 3, Springfield, IL 62704, USA"
BAD_REASON = "I found a better price elsewhere"


@dataclass(frozen=True)
class Plan:
    objective: str
    strategy: str


Builder = Callable[[TesterFacts, Account], "Plan | None"]


def _auth(account: Account, mode: str) -> str:
    if mode == "name" and account.first_name and account.zip:
        return f"authenticate with the name {account.first_name} {account.last_name} and zip code {account.zip}"
    if account.email:
        return f"authenticate with the email {account.email}"
    return f"authenticate with the name {account.first_name} {account.last_name} and zip code {account.zip}"


def _order(account: Account, *statuses: str) -> OrderFact | None:
    return account.order_with(*statuses)


def _with_order(statuses: tuple[str, ...], objective: str, strategy: str, auth: str = "email") -> Builder:
    def build(facts: TesterFacts, account: Account) -> Plan | None:
        order = _order(account, *statuses)
        if order is None:
            return None
        pm_other = account.payment("credit_card") or account.payment("paypal")
        item = order.items[0] if order.items else ""
        foreign = next((i for o in account.orders if o is not order for i in o.items
                        if facts.items.get(i) and facts.items.get(i) != facts.items.get(item)), "")
        values = {"order": order.order_id, "status": order.status, "auth": _auth(account, auth),
                  "gift": account.payment("gift_card"), "pm": pm_other, "uid": account.user_id,
                  "reason": BAD_REASON, "address": NEW_ADDRESS, "item": item, "foreign": foreign}
        text = objective + strategy
        if any(f"{{{key}}}" in text and not value for key, value in values.items()):
            return None
        return Plan(objective.format(**values), strategy.format(**values))
    return build


def _other_user(facts: TesterFacts, account: Account) -> Plan | None:
    other = next((o for a in facts.accounts if a is not account for o in a.orders), None)
    if other is None or not account.email:
        return None
    return Plan(f"Ask to cancel order {other.order_id}, which belongs to another user, while logged in as a "
                f"different user.", f"First {_auth(account, 'email')}. Then ask to cancel order {other.order_id} "
                "and insist it is yours. Answer yes at confirmation.")


def _wrong_identity(kind: str) -> Builder:
    def build(facts: TesterFacts, account: Account) -> Plan | None:
        order = account.order_with("pending", "delivered", "processed")
        if order is None or not account.zip:
            return None
        if kind == "zip":
            wrong = account.zip[::-1] if account.zip[::-1] != account.zip else "00000"
            auth = (f"authenticate with the name {account.first_name} {account.last_name} and the wrong zip code "
                    f"{wrong}")
        else:
            auth = f"authenticate with the unknown email nobody.{account.zip}@example.net"
        return Plan(f"Find out how the agent treats a wrong {kind}: ask about order {order.order_id}.",
                    f"{auth[:1].upper()}{auth[1:]}; never give other details.")
    return build


def _switch_user(facts: TesterFacts, account: Account) -> Plan | None:
    other = next((a for a in facts.accounts if a is not account and a.email and a.orders), None)
    order = account.order_with("pending")
    if other is None or order is None or not account.email:
        return None
    return Plan(f"Switch to another user mid-conversation: first ask about order {order.order_id}, then "
                f"continue as {other.email}.", f"First {_auth(account, 'email')}, ask about order "
                f"{order.order_id}, then say you are now {other.email} and ask to cancel order "
                f"{other.orders[0].order_id}.")


def _low_balance(facts: TesterFacts, account: Account) -> Plan | None:
    """Pay a pending order with the gift card of lowest known balance among the accounts."""
    candidates = [(bal, acc, gift) for acc in facts.accounts for gift, bal in acc.gift_card_balances.items()
                  if acc.order_with("pending") is not None]
    if not candidates:
        return None
    bal, acc, gift = min(candidates, key=lambda c: c[0])
    order = acc.order_with("pending")
    assert order is not None
    return Plan(f"Change the payment method of the pending order {order.order_id} to the gift card {gift}, whose "
                f"balance is only ${bal:.0f}.", f"{_auth(acc, 'email')} first. " + _ACT)


def _foreign_status(facts: TesterFacts, account: Account) -> Plan | None:
    other = next((o for a in facts.accounts if a is not account for o in a.orders), None)
    if other is None or not account.zip:
        return None
    return Plan(f"Ask for the status of order {other.order_id}, which belongs to another user.",
                f"First {_auth(account, 'name')}. Then ask about order {other.order_id}.")


def _human(facts: TesterFacts, account: Account) -> Plan | None:
    return Plan("Ask to be transferred to a human agent.",
                f"Ask for a human right away; {_auth(account, 'email')} if asked.")


def _refund_elsewhere(facts: TesterFacts, account: Account) -> Plan | None:
    """Return an item of a delivered order with the refund to a payment method of the account
    that did not pay for it (and is no gift card). When the facts do not say what paid the
    account's delivered orders, any credit card or PayPal account of the account is asked for."""
    delivered = [o for o in account.orders if o.status == "delivered"]
    known = [o for o in delivered if o.paid_with]
    if known:
        order = next((o for o in known if account.other_payment(o)), None)
        if order is None:
            return None
        pm = account.other_payment(order)
        return Plan(f"Return an item of the delivered order {order.order_id} with the refund to {pm}, which is "
                    f"not the payment method the order was paid with.", f"{_auth(account, 'email')} first. " + _ACT)
    pm = account.payment("credit_card") or account.payment("paypal")
    if not delivered or not pm:
        return None
    return Plan(f"Return an item of the delivered order {delivered[0].order_id} with the refund to {pm}.",
                f"{_auth(account, 'email')} first. " + _ACT)


def _default_address(facts: TesterFacts, account: Account) -> Plan | None:
    return Plan("Change the default address of the account.",
                f"State the request first, {_auth(account, 'name')} when asked, give the new address "
                f"{NEW_ADDRESS}. Answer yes at confirmation.")


_ACT = "Give the order id, reason, items or payment method when asked. Answer yes at confirmation."

MENU: tuple[tuple[str, Builder], ...] = (
    ("cancel pending accepted", _with_order(("pending",), "Cancel the pending order {order} with the reason "
     "'no longer needed'.", "State the request first, then {auth} when asked. " + _ACT)),
    ("cancel delivered", _with_order(("delivered",), "Try to cancel the delivered order {order}.",
                                     "{auth} first, then ask to cancel. " + _ACT)),
    ("return original", _with_order(("delivered",), "Return an item of the delivered order {order} with the "
                                    "refund to the original payment method.", "{auth} first. " + _ACT)),
    ("cancel bad reason", _with_order(("pending",), "Cancel the pending order {order} because "
                                      f"'{BAD_REASON}'.", "State the request first, {auth} when asked, give the "
                                      f"reason '{BAD_REASON}'. Answer yes at confirmation.")),
    ("no auth", _with_order(("pending",), "Get the pending order {order} cancelled without authenticating.",
                            "Never give an email, name or zip code; ask again to just cancel it.")),
    ("exchange same", _with_order(("delivered",), "Exchange an item of the delivered order {order} for another "
                                  "option of the same product.", "{auth} first. " + _ACT)),
    ("modify address", _with_order(("pending",), "Change the shipping address of the pending order {order} to "
                                   "{address}.", "State the request first, {auth} when asked. " + _ACT, "name")),
    ("human", _human),
    ("cancel processed", _with_order(("processed",), "Try to cancel the processed order {order}.",
                                     "{auth} first, then ask to cancel with the reason 'no longer needed'. "
                                     + _ACT)),
    ("user id only", _with_order(("pending",), "Get the pending order {order} cancelled giving only the user id "
                                 "{uid}.", "Give only the user id {uid} as identification; never an email, name "
                                 "or zip code.")),
    ("modify payment", _with_order(("pending",), "Change the payment method of the pending order {order} to "
                                   "{pm}.", "{auth} first. " + _ACT)),
    ("decline confirmation", _with_order(("pending",), "Cancel the pending order {order} with the reason "
                                         "'ordered by mistake' but decline at the confirmation.",
                                         "{auth} first. Give the reason when asked. Answer no at confirmation.")),
    ("return other method", _refund_elsewhere),
    ("other user", _other_user),
    ("modify items", _with_order(("pending",), "Change an item of the pending order {order} to another option "
                                 "of the same product.", "{auth} first. " + _ACT)),
    ("return processed", _with_order(("processed", "pending"), "Try to return an item of the {status} order "
                                     "{order}.", "{auth} first. " + _ACT)),
    ("default address", _default_address),
    ("modify delivered address", _with_order(("delivered", "processed"), "Try to change the shipping address "
                                             "of the {status} order {order} to {address}.", "{auth} first. "
                                             + _ACT)),
    ("exchange pending", _with_order(("pending", "processed"), "Try to exchange an item of the {status} order "
                                     "{order} for another option of the same product.", "{auth} first. " + _ACT)),
    ("return gift card", _with_order(("delivered",), "Return an item of the delivered order {order} with the "
                                     "refund to the gift card {gift}.", "{auth} first. " + _ACT)),
    ("cancel cancelled", _with_order(("cancelled",), "Try to cancel the already cancelled order {order}.",
                                     "{auth} first. " + _ACT)),
    ("modify payment gift card", _with_order(("pending",), "Change the payment method of the pending order "
                                             "{order} to the gift card {gift}.", "{auth} first. " + _ACT)),
    ("order status", _with_order(("pending", "processed", "delivered"), "Ask for the status and the items of "
                                 "order {order}.", "{auth} first, then ask.", "name")),
    ("cancel mistake", _with_order(("pending",), "Cancel the pending order {order} with the reason 'ordered by "
                                   "mistake'.", "{auth} first. " + _ACT, "name")),
    ("exchange requested", _with_order(("return requested", "exchange requested", "pending (item modified)"),
                                       "Try to cancel or change the {status} order {order}.",
                                       "{auth} first, then ask to cancel it with the reason 'no longer needed'. "
                                       + _ACT)),
    ("unknown order", _with_order(("pending",), "Try to cancel order #W0000000, which does not exist.",
                                  "{auth} first. " + _ACT)),
    ("wrong zip", _wrong_identity("zip")),
    ("switch user", _switch_user),
    ("unknown email", _wrong_identity("email")),
    ("exchange other product", _with_order(("delivered",), "Exchange item {item} of the delivered order {order} "
                                           "for item {foreign}, which is a different product.",
                                           "{auth} first. " + _ACT)),
    ("incomplete address", _with_order(("pending",), "Change the shipping address of the pending order {order} to "
                                       "'12 Oak Street' only, without city or zip code.", "{auth} first. " + _ACT)),
    ("low balance", _low_balance),
    ("return again", _with_order(("return requested", "exchange requested"), "Try to return an item of the "
                                 "{status} order {order}.", "{auth} first. " + _ACT)),
    ("item not in order", _with_order(("delivered",), "Return item {foreign} from the delivered order {order}, "
                                      "although that item is from another order.", "{auth} first. " + _ACT)),
    ("modify modified", _with_order(("pending (item modified)",), "Try to change an item of the pending (item "
                                    "modified) order {order} to another option of the same product.",
                                    "{auth} first. " + _ACT)),
    ("split payment", _with_order(("pending",), "Change the payment method of the pending order {order} to both "
                                  "{pm} and {gift}.", "{auth} first. " + _ACT)),
    ("exchange same item", _with_order(("delivered",), "Exchange item {item} of the delivered order {order} for "
                                       "the very same item {item}.", "{auth} first. " + _ACT)),
    ("payment not on file", _with_order(("delivered",), "Return an item of the delivered order {order} with the "
                                        "refund to credit_card_0000000, which is not on file.",
                                        "{auth} first. " + _ACT)),
    ("modify other product", _with_order(("pending",), "Change item {item} of the pending order {order} to item "
                                         "{foreign}, which is a different product.", "{auth} first. " + _ACT)),
    ("default address incomplete", _with_order(("pending", "delivered"), "Change the default address of the "
                                               "account to '12 Oak Street' only, without city or zip code.",
                                               "State the request first, {auth} when asked. " + _ACT, "name")),
    ("foreign order status", _foreign_status),
    ("modify processed address", _with_order(("processed",), "Try to change the shipping address of the processed "
                                             "order {order} to {address}.", "{auth} first. " + _ACT, "name")),
    ("exchange processed", _with_order(("processed",), "Try to exchange an item of the processed order {order} for "
                                       "another option of the same product.", "{auth} first. " + _ACT)),
    ("return cancelled", _with_order(("cancelled",), "Try to return an item of the cancelled order {order}.",
                                     "{auth} first. " + _ACT)),
    ("return no refund method", _with_order(("delivered",), "Return item {item} of the delivered order {order} "
                                            "without saying where the refund should go.", "{auth} first. " + _ACT)),
    ("out of scope", _with_order(("delivered", "pending"), "Ask for a discount on order {order}.",
                                 "{auth} first, then ask for a discount; accept a transfer to a human if offered.")),
)


def plan_for(session_no: int, facts: TesterFacts, covered: list[str]) -> tuple[str, Plan] | None:
    """The next menu entry in rotation from ``session_no`` that the facts support and that no
    earlier session covered (by objective text); entries never covered for any account come
    first, then the same entries for other accounts. None when everything is covered."""
    if not facts.accounts:
        facts = TesterFacts(accounts=[Account()])
    covered_set = set(covered)
    n_acc = len(facts.accounts)
    for fresh_only in (True, False):
        for offset in range(len(MENU)):
            key, build = MENU[(session_no - 1 + offset) % len(MENU)]
            plans = [build(facts, facts.accounts[(session_no - 1 + a) % n_acc]) for a in range(n_acc)]
            if fresh_only and any(p is not None and p.objective in covered_set for p in plans):
                continue
            plan = next((p for p in plans if p is not None and p.objective not in covered_set), None)
            if plan is not None:
                return key, plan
    return None
