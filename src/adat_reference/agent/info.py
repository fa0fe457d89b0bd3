"""Answers to information requests: the user's orders, profile, and the product catalogue."""

from __future__ import annotations

import json

from adat_reference.agent.authentication import require_auth
from adat_reference.agent.formatting import (
    address_text,
    methods_text,
    options_text,
    order_details,
    order_line,
)
from adat_reference.agent.items import name_pattern
from adat_reference.agent.nlu import Parsed
from adat_reference.agent.orders import lookup_failure
from adat_reference.agent.session import Session
from adat_reference.retail.database import Product


def order_info(s: Session, p: Parsed, current_order: str | None) -> str:
    gate = require_auth(s, "information about your orders", order_id=p.order_ids[0] if p.order_ids else current_order)
    if gate is not None:
        return gate
    user = s.user
    assert user is not None
    ids = p.order_ids or ([current_order] if current_order else [])
    if not ids:
        orders = [s.db.orders[o] for o in user.orders if o in s.db.orders]
        return f"Your orders: {', '.join(order_line(o) for o in orders) or 'none'}."
    out: list[str] = []
    for order_id in ids:
        order = s.order(order_id)
        exists = s.holds("order_exists", order is not None)
        if not exists or order is None:
            out.append(lookup_failure(s, order_id) if exists else s.say("order_exists", order_id=order_id))
            continue
        if not s.holds("order_owner", order.user_id == user.user_id):
            out.append(s.say("order_owner", order_id=order_id))
            continue
        owner = s.db.users.get(order.user_id, user)
        out.append(order_details(order, owner))
    return " ".join(out)


def profile_info(s: Session) -> str:
    gate = require_auth(s, "information about your profile")
    if gate is not None:
        return gate
    user = s.user
    assert user is not None
    return (f"Your profile: {user.name.first_name} {user.name.last_name}, email {user.email}, default address "
            f"{address_text(user.address)}. Payment methods: {methods_text(user)}. "
            f"Orders: {', '.join(user.orders) or 'none'}.")


def _named_products(s: Session, p: Parsed) -> list[Product]:
    catalogue = json.loads(s.call("list_all_product_types"))
    found: list[tuple[int, str]] = []
    for name, product_id in catalogue.items():
        m = name_pattern(name).search(p.text)
        if m or product_id in p.numbers:
            found.append((m.start() if m else p.text.find(product_id), product_id))
    return [s.db.products[pid] for _, pid in sorted(found) if pid in s.db.products]


def product_info(s: Session, p: Parsed) -> str:
    """The catalogue is not about an account, so it needs no authentication (policy 1.1)."""
    products = _named_products(s, p)
    if not products:
        catalogue = json.loads(s.call("list_all_product_types"))
        return f"Which product would you like to know about? We sell: {', '.join(sorted(catalogue))}."
    out: list[str] = []
    for product in products:
        s.call("get_product_details", product_id=product.product_id)
        available = [v for v in product.variants.values() if v.available]
        listed = "; ".join(f"{options_text(v.options)} (${v.price:,.2f}, item {v.item_id})" for v in available)
        out.append(f"The {product.name} (product id {product.product_id}) has {len(available)} available "
                   f"option{'s' if len(available) != 1 else ''} right now"
                   f"{': ' + listed if listed else ''}.")
    return " ".join(out)
