"""Finders over a retail database, so tool tests pick their cases by situation, not by hard-coded id."""

from __future__ import annotations

import pytest

from adat.errors import ToolError
from adat_reference.retail.database import GiftCard, Order, OrderItem, Paypal, RetailDB, User, Variant
from adat_reference.retail.tools import RetailTools


def orders_with(db: RetailDB, status: str) -> list[Order]:
    found = [o for o in db.orders.values() if o.status == status]
    assert found, f"the database has no order with status {status!r}"
    return found


def alternatives(db: RetailDB, item: OrderItem, available: bool = True) -> list[Variant]:
    """Other variants of the item's product with the given availability."""
    return [v for v in db.products[item.product_id].variants.values()
            if v.available == available and v.item_id != item.item_id]


def foreign_item(db: RetailDB, item: OrderItem) -> Variant:
    """An available variant of a different product."""
    return next(v for p in db.products.values() if p.product_id != item.product_id
                for v in p.variants.values() if v.available)


def ensure_gift_card(user: User, balance: float) -> GiftCard:
    """The user's first gift card set to ``balance`` (a card is added when they have none)."""
    for method in user.payment_methods.values():
        if isinstance(method, GiftCard):
            method.balance = balance
            return method
    card = GiftCard(source="gift_card", id="gift_card_0000001", balance=balance)
    user.payment_methods[card.id] = card
    return card


def non_gift_methods(user: User, exclude: str | None = None) -> list[str]:
    return [pm_id for pm_id, m in user.payment_methods.items() if m.source != "gift_card" and pm_id != exclude]


def add_paypal(user: User) -> str:
    """A PayPal account id in the user's profile (one is added when they have none)."""
    for pm_id, method in user.payment_methods.items():
        if method.source == "paypal":
            return pm_id
    user.payment_methods["paypal_0000002"] = Paypal(source="paypal", id="paypal_0000002")
    return "paypal_0000002"


def assert_refused(tools: RetailTools, name: str, arguments: dict, match: str) -> None:
    """The call raises ToolError matching ``match`` and leaves the database exactly as it was."""
    before = tools.db.canonical_hash()
    with pytest.raises(ToolError, match=match):
        tools.call(name, arguments)
    assert tools.db.canonical_hash() == before, f"{name} changed the database although it refused"
