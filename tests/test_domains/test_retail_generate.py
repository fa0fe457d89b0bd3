"""adat's generated retail database: reproducible, and holding every situation the policy names."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from adat.errors import UserError
from adat_reference.retail.database import (
    ORDER_STATUSES,
    GiftCard,
    RetailDB,
    default_db_path,
    default_policy_path,
)
from adat_reference.retail.generate import generate_retail_db, write_reference_db

ID_FORMATS = {
    "order": re.compile(r"#W\d{7}"), "user": re.compile(r"[a-z]+_[a-z]+_\d{4}"), "item": re.compile(r"\d{10}"),
    "payment": re.compile(r"(credit_card|paypal|gift_card)_\d{7}"),
}


def coverage_problems(db: RetailDB) -> list[str]:
    """Every requirement on the generated database that does not hold (empty = all hold)."""
    problems: list[str] = []

    def need(ok: bool, what: str) -> None:
        if not ok:
            problems.append(what)

    statuses = Counter(o.status for o in db.orders.values())
    need(set(statuses) == set(ORDER_STATUSES), f"every order status (have {sorted(statuses)})")
    paid_with = {p.payment_method_id.rsplit("_", 1)[0] for o in db.orders.values() for p in o.payment_history}
    need(paid_with == {"credit_card", "paypal", "gift_card"}, f"orders paid with every payment type ({paid_with})")
    cards = [(u, m) for u in db.users.values() for m in u.payment_methods.values() if isinstance(m, GiftCard)]
    need(any(m.balance == 0 for _, m in cards), "a gift card with zero balance")
    largest_total = max(sum(i.price for i in o.items) for o in db.orders.values())
    need(any(m.balance >= largest_total for _, m in cards), "a gift card covering any order total")
    need(any(0 < m.balance < v.price - line.price
             for u, m in cards for o in db.orders.values() if o.user_id == u.user_id and o.status == "pending"
             for line in o.items for v in db.products[line.product_id].variants.values() if v.available),
         "a gift card below a price difference of one of its owner's pending items")
    need(any(len(u.orders) >= 3 and len(u.payment_methods) >= 3 for u in db.users.values()),
         "a user with several orders and several payment methods")
    need(all(any(not v.available for v in p.variants.values()) and sum(v.available for v in p.variants.values()) >= 3
             for p in db.products.values()), "every product with an out-of-stock and three in-stock variants")
    need(any(len({i.item_id for i in o.items if i.product_id == pid}) >= 2
             for o in db.orders.values() for pid in {i.product_id for i in o.items}),
         "an order with two different items of one product")
    need(any(len(o.items) != len({i.item_id for i in o.items}) for o in db.orders.values()),
         "an order with two units of the same item")
    names = Counter((u.name.first_name, u.name.last_name) for u in db.users.values())
    need(max(names.values()) >= 2, "two users with the same name (told apart by zip)")
    need(len({(u.name.first_name, u.name.last_name, u.address.zip) for u in db.users.values()}) == len(db.users),
         "name + zip identifies every user")
    need(len({u.email for u in db.users.values()}) == len(db.users), "unique emails")
    for order in db.orders.values():
        user = db.users.get(order.user_id)
        need(user is not None and order.order_id in user.orders, f"{order.order_id} listed by its user")
        need(bool(ID_FORMATS["order"].fullmatch(order.order_id)), f"order id format {order.order_id}")
        for line in order.items:
            need(line.item_id in db.products[line.product_id].variants, f"{order.order_id} item {line.item_id} exists")
        for payment in order.payment_history:
            need(user is not None and payment.payment_method_id in user.payment_methods,
                 f"{order.order_id} paid with a method of its user")
        need((order.fulfillments == []) == order.status.startswith("pending") or order.status == "cancelled",
             f"{order.order_id} shipped exactly when no longer pending")
    for user in db.users.values():
        need(bool(ID_FORMATS["user"].fullmatch(user.user_id)), f"user id format {user.user_id}")
        need(all(ID_FORMATS["payment"].fullmatch(pm) for pm in user.payment_methods), f"payment ids of {user.user_id}")
    for product in db.products.values():
        need(all(ID_FORMATS["item"].fullmatch(i) for i in [product.product_id, *product.variants]),
             f"10-digit ids in {product.name}")
    return problems


def test_committed_database_is_the_default_generation() -> None:
    committed = RetailDB.load(default_db_path())
    assert committed.canonical_hash() == generate_retail_db().canonical_hash(), (
        "data/reference/retail/db.json is stale: run `python -m adat_reference.retail.generate`")


def test_committed_database_size() -> None:
    db = RetailDB.load(default_db_path())
    assert (len(db.users), len(db.orders), len(db.products)) == (50, 150, 20)
    assert default_db_path().stat().st_size < 250_000


@pytest.mark.parametrize("seed", [7, 1, 2024])
def test_coverage_requirements_hold(seed: int) -> None:
    assert coverage_problems(generate_retail_db(seed=seed)) == []


def test_coverage_check_can_fail(generated_db: RetailDB) -> None:
    broken = generated_db.copy_fresh()
    for order in broken.orders.values():
        if order.status == "exchange requested":
            order.status = "delivered"
    for user in broken.users.values():
        for method in user.payment_methods.values():
            if isinstance(method, GiftCard) and method.balance == 0:
                method.balance = 1.0
    problems = coverage_problems(broken)
    assert any("every order status" in p for p in problems) and "a gift card with zero balance" in problems


def test_generation_is_deterministic_per_seed() -> None:
    assert generate_retail_db(seed=3).canonical_hash() == generate_retail_db(seed=3).canonical_hash()
    assert generate_retail_db(seed=3).canonical_hash() != generate_retail_db(seed=4).canonical_hash()


def test_sizes_follow_the_arguments() -> None:
    db = generate_retail_db(seed=5, users=12, orders=40, products=8)
    assert (len(db.users), len(db.orders), len(db.products)) == (12, 40, 8)


@pytest.mark.parametrize("kwargs", [{"products": 0}, {"products": 99}, {"orders": 5}, {"users": 2}])
def test_too_small_or_too_large_is_a_user_error(kwargs: dict) -> None:
    with pytest.raises(UserError):
        generate_retail_db(**kwargs)


def test_write_reference_db(tmp_path: Path) -> None:
    path = write_reference_db(tmp_path / "sub" / "db.json", seed=9)
    assert RetailDB.load(path).canonical_hash() == generate_retail_db(seed=9).canonical_hash()


def test_policy_states_the_rules_the_reference_agent_enforces() -> None:
    text = " ".join(default_policy_path().read_text().split()).lower()
    for phrase in ["email", "first name + last name + zip code", "even when the customer says their user id",
                   "another customer", 'explicit "yes"', "no longer needed", "ordered by mistake",
                   "exactly `pending`", "only **once**", "same product", "available", "single payment method",
                   "gift card must cover the difference", "original payment method", "`delivered`",
                   "human agent", "never invent", "one tool call at a time"]:
        assert phrase in text, phrase
