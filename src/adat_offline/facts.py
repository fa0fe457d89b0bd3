"""Tester facts, read the way a QA tester reads the sheet of test accounts they were handed.

A fact is free text. The parser picks out what a retail tester is given: an account's email, its
name plus zip code, user id, its orders with their status and the payment method that paid them
("paid with ..."), its payment methods (gift-card balances), and item ids with a short
description. Facts that name no account belong to the
account named last, so a sheet written account by account parses as expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adat_offline.language import EMAIL, ITEM_ID, ORDER_ID, PAYMENT_ID, USER_ID

_NAME = re.compile(r"\bname\s*:?\s*([A-Z][a-z]+)\s+([A-Z][a-z]+)")
_ZIP = re.compile(r"\bzip(?:\s*code)?\s*:?\s*(\d{5})\b", re.IGNORECASE)
_PAID_WITH = re.compile(r"\bpaid (?:with|by|using)\s+(?:the\s+)?(" + PAYMENT_ID.pattern + ")", re.IGNORECASE)
_BALANCE = re.compile(r"balance\s*(?:of\s*)?\$?\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


@dataclass
class OrderFact:
    order_id: str
    status: str = ""
    items: list[str] = field(default_factory=list)
    paid_with: str = ""  # the payment method id that paid the order, when the facts say


@dataclass
class Account:
    email: str = ""
    first_name: str = ""
    last_name: str = ""
    zip: str = ""
    user_id: str = ""
    orders: list[OrderFact] = field(default_factory=list)
    payment_methods: list[str] = field(default_factory=list)
    gift_card_balances: dict[str, float] = field(default_factory=dict)

    def order_with(self, *statuses: str) -> OrderFact | None:
        """The first order whose status is one of ``statuses``."""
        return next((o for o in self.orders if o.status in statuses), None)

    def payment(self, kind: str, exclude: str = "") -> str:
        """The first payment method id of a kind (credit_card / paypal / gift_card), or ''."""
        return next((p for p in self.payment_methods if p.startswith(kind) and p != exclude), "")

    def other_payment(self, order: OrderFact) -> str:
        """A payment method of the account that did not pay ``order`` and is not a gift card
        (credit card first, then PayPal); '' when the facts do not say what paid the order."""
        if not order.paid_with:
            return ""
        return next((p for kind in ("credit_card", "paypal") for p in self.payment_methods
                     if p.startswith(kind) and p != order.paid_with), "")


@dataclass
class TesterFacts:
    accounts: list[Account] = field(default_factory=list)
    items: dict[str, str] = field(default_factory=dict)  # item id -> description from the facts

    def account_of_order(self, order_id: str) -> Account | None:
        return next((a for a in self.accounts if any(o.order_id == order_id for o in a.orders)), None)

    def order(self, order_id: str) -> OrderFact | None:
        return next((o for a in self.accounts for o in a.orders if o.order_id == order_id), None)

    def all_orders(self) -> list[tuple[Account, OrderFact]]:
        return [(a, o) for a in self.accounts for o in a.orders]

    def states(self) -> tuple[str, ...]:
        """The order states the facts give, in the order they first appear."""
        return tuple(dict.fromkeys(o.status for _, o in self.all_orders() if o.status))


def normalise_order_id(text: str) -> str:
    return text if text.startswith("#") else f"#{text}"


_STATE = re.compile(r"^\s*(?:is|status:?)\s+(?:now\s+)?([a-z][a-z -]*(?:\([a-z ]+\))?)", re.IGNORECASE)


def _status_after(text: str) -> str:
    """The state the facts give right after an order id ("#W1 is pending, paid with ..."): the
    words up to the next comma, clause or item list, as the sheet writes them."""
    match = _STATE.match(text)
    if match is None:
        return ""
    status = re.split(r"\s+(?:paid|with|and|for|since)\b|\s+\(item \d", match.group(1).strip())[0].strip().lower()
    return "cancelled" if status == "canceled" else status


def parse_facts(facts: list[str]) -> TesterFacts:
    """Accounts, orders, payment methods and items named in the tester facts."""
    parsed = TesterFacts()
    current: Account | None = None
    for fact in facts:
        account = _account_named(parsed, fact)
        if account is None and (EMAIL.search(fact) or _NAME.search(fact) or USER_ID.search(fact)):
            account = Account()
            parsed.accounts.append(account)
        if account is None:
            account = current
        if account is None:
            account = Account()
            parsed.accounts.append(account)
        current = account
        _fill_identity(account, fact)
        _fill_orders(account, fact, parsed)
        for pm in PAYMENT_ID.findall(fact):
            if pm not in account.payment_methods:
                account.payment_methods.append(pm)
            if pm.startswith("gift_card"):
                tail = fact[fact.find(pm):]
                bal = _BALANCE.search(tail[:60])
                if bal:
                    account.gift_card_balances[pm] = float(bal.group(1))
    return parsed


def _account_named(parsed: TesterFacts, fact: str) -> Account | None:
    emails = set(EMAIL.findall(fact))
    users = set(USER_ID.findall(fact))
    for account in parsed.accounts:
        if (account.email and account.email in emails) or (account.user_id and account.user_id in users):
            return account
    return None


def _fill_identity(account: Account, fact: str) -> None:
    if not account.email and (m := EMAIL.search(fact)):
        account.email = m.group(0)
    if not account.first_name and (n := _NAME.search(fact)):
        account.first_name, account.last_name = n.group(1), n.group(2)
    if not account.zip and (z := _ZIP.search(fact)):
        account.zip = z.group(1)
    if not account.user_id and (u := USER_ID.search(fact)):
        account.user_id = u.group(0)


def _fill_orders(account: Account, fact: str, parsed: TesterFacts) -> None:
    matches = list(ORDER_ID.finditer(fact))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(fact)
        segment = fact[match.end():end]
        order_id = normalise_order_id(match.group(0))
        order = next((o for o in account.orders if o.order_id == order_id), None)
        if order is None:
            order = OrderFact(order_id)
            account.orders.append(order)
        order.status = order.status or _status_after(segment)
        if not order.paid_with and (paid := _PAID_WITH.search(segment)):
            order.paid_with = paid.group(1)
        for item in ITEM_ID.finditer(segment):
            if item.group(0) not in order.items:
                order.items.append(item.group(0))
    for item in ITEM_ID.finditer(fact):
        desc = re.match(r"\s*\(([^)]{1,80})\)", fact[item.end():])
        parsed.items.setdefault(item.group(0), desc.group(1) if desc else "")
