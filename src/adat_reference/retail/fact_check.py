"""Validity condition (a) for the retail domain: the facts a test assumes hold in the initial database.

Deliberately independent of the offline tester's fact parser, so the auditor does not share its
blind spots. What is checked (docs/auditing.md, "facts"):

* every identifier in ``assumed_facts`` (order id, email, user id, item id, payment method id)
  exists in the initial database;
* a fact naming exactly one order and an order status states that order's status (a status
  preceded by a negation is not checked);
* a fact naming one account (email or user id) and orders or payment methods: they belong to it;
* a fact naming a zip code: some user with that zip is named in the fact (name, email or id);
* a gift card balance stated in a fact equals the card's balance;
* identifiers in the step hints exist, unless the test expects the *denied* side — a request may
  name an unknown order or email on purpose to probe a lookup condition.
"""

from __future__ import annotations

import re

from adat.records import TestCase
from adat_reference.retail import RetailDB
from adat_reference.retail.database import GiftCard, User

ORDER_ID = re.compile(r"#?W\d{7}\b")
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
USER_ID = re.compile(r"\b(?!credit_card_|gift_card_)[a-z]+_[a-z]+_\d{3,}\b")  # not a payment method id
ITEM_ID = re.compile(r"\b\d{10}\b")
PAYMENT_ID = re.compile(r"\b(?:credit_card|paypal|gift_card)_\d+\b")
ZIP = re.compile(r"\bzip(?:\s*code)?\s*(?:is|:)?\s*(\d{5})\b", re.IGNORECASE)
BALANCE = re.compile(r"balance\s*(?:of\s*|is\s*)?\$?\s*(\d+(?:\.\d+)?)", re.IGNORECASE)
# Longest first, so "pending (item modified)" is not read as "pending".
STATUSES = ("pending (item modified)", "return requested", "exchange requested", "pending", "processed",
            "delivered", "cancelled", "canceled")
_NEGATION = re.compile(r"\b(not|no longer|never|isn't|wasn't)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


def _order(text: str) -> str:
    return text if text.startswith("#") else f"#{text}"


class FactChecker:
    """Checks tests' assumed facts and named identifiers against one initial database."""

    def __init__(self, db: RetailDB) -> None:
        self.db = db
        self.by_email = {u.email.lower(): u for u in db.users.values()}
        self.items = {item_id for p in db.products.values() for item_id in p.variants} | {
            p.product_id for p in db.products.values()}
        self.payments = {pm_id: u for u in db.users.values() for pm_id in u.payment_methods}

    def problems(self, test: TestCase, expected_side: str | None) -> list[str]:
        """Every way the test's facts fail to hold; empty when they all hold."""
        found: list[str] = []
        for fact in test.assumed_facts:
            found += [f"assumed fact {fact!r}: {p}" for p in self._fact_problems(fact)]
        if expected_side != "denied":
            for hint in test.step_hints:
                found += [f"step hint names {p}" for p in self._unknown_ids(hint)]
        return list(dict.fromkeys(found))

    # --- one fact ------------------------------------------------------------------------
    def _fact_problems(self, fact: str) -> list[str]:
        out = [f"{p} (not in the initial database)" for p in self._unknown_ids(fact)]
        account = self._account(fact)
        orders = [_order(m) for m in ORDER_ID.findall(fact)]
        for order_id in orders:
            order = self.db.orders.get(order_id)
            if order is None:
                continue
            if account is not None and order.user_id != account.user_id:
                out.append(f"order {order_id} belongs to {order.user_id}, not {account.user_id}")
        if len(set(orders)) == 1 and orders[0] in self.db.orders:
            stated = _stated_status(fact)
            actual = self.db.orders[orders[0]].status
            if stated and not _status_matches(stated, actual):
                out.append(f"order {orders[0]} is {actual!r}, not {stated!r}")
        for pm in PAYMENT_ID.findall(fact):
            owner = self.payments.get(pm)
            if owner is not None and account is not None and owner.user_id != account.user_id:
                out.append(f"payment method {pm} belongs to {owner.user_id}, not {account.user_id}")
            bal = BALANCE.search(fact[fact.find(pm):][:80])
            method = owner.payment_methods.get(pm) if owner else None
            if bal and isinstance(method, GiftCard) and abs(float(bal.group(1)) - method.balance) > 0.005:
                out.append(f"gift card {pm} has balance {method.balance}, not {bal.group(1)}")
        zip_match = ZIP.search(fact)
        if zip_match and not self._zip_holds(fact, zip_match.group(1), account):
            out.append(f"no user named in the fact has zip code {zip_match.group(1)}")
        return out

    def _unknown_ids(self, text: str) -> list[str]:
        out = [f"order {_order(o)}" for o in ORDER_ID.findall(text) if _order(o) not in self.db.orders]
        out += [f"email {e}" for e in EMAIL.findall(text) if e.lower() not in self.by_email]
        out += [f"user id {u}" for u in USER_ID.findall(text) if u not in self.db.users]
        out += [f"item {i}" for i in ITEM_ID.findall(text) if i not in self.items]
        out += [f"payment method {p}" for p in PAYMENT_ID.findall(text) if p not in self.payments]
        return out

    def _account(self, fact: str) -> User | None:
        """The one account a fact names by email or user id (None when it names none or several)."""
        users = {u.user_id: u for e in EMAIL.findall(fact) if (u := self.by_email.get(e.lower()))}
        users |= {uid: self.db.users[uid] for uid in USER_ID.findall(fact) if uid in self.db.users}
        return next(iter(users.values())) if len(users) == 1 else None

    def _zip_holds(self, fact: str, zip_code: str, account: User | None) -> bool:
        if account is not None:
            return account.address.zip == zip_code
        low = fact.lower()
        return any(u.address.zip == zip_code and u.name.first_name.lower() in low and u.name.last_name.lower() in low
                   for u in self.db.users.values())


def _stated_status(fact: str) -> str | None:
    low = fact.lower()
    for status in STATUSES:
        at = low.find(status)
        if at >= 0 and not _NEGATION.search(low[:at]):
            return "cancelled" if status == "canceled" else status
    return None


def _status_matches(stated: str, actual: str) -> bool:
    # An order whose items were modified is still pending: "pending" describes it truthfully.
    return stated == actual or (stated == "pending" and actual == "pending (item modified)")
