"""adat's own retail database: a seeded generator in the τ²-bench format.

The database is small (about 50 users, 150 orders, 20 products) but holds every situation the
policy distinguishes, so each rule of the reference agent can be exercised on both sides:
every order status, every payment type, gift cards with a zero, an insufficient and a large
balance, users with several orders and payment methods, out-of-stock variants, and orders with
several items of one product. Orders in a derived status (cancelled, items modified, return or
exchange requested) are produced by running the real tools on a pending or delivered order, so
their records are exactly what the tools write. Same seed, same database, byte for byte.

Regenerate the shipped file with ``python -m adat_reference.retail.generate``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
from pathlib import Path

from adat.errors import UserError
from adat_reference.retail.catalog_data import CARD_BRANDS, CITIES, FIRST_NAMES, LAST_NAMES, PRODUCTS, STREETS
from adat_reference.retail.database import (
    CANCEL_REASONS,
    Address,
    CreditCard,
    Fulfillment,
    GiftCard,
    Order,
    OrderItem,
    OrderStatus,
    Payment,
    Paypal,
    Product,
    RetailDB,
    User,
    UserName,
    Variant,
    default_db_path,
)
from adat_reference.retail.order_checks import cents
from adat_reference.retail.tools import RetailTools

# Share of orders per status beyond 'pending' (which takes the rest); each status gets at least one.
STATUS_SHARES = {"processed": 0.15, "delivered": 0.30, "cancelled": 0.07, "pending (item modified)": 0.05,
                 "return requested": 0.05, "exchange requested": 0.05}
PAYMENT_PATTERNS = [["credit_card"], ["paypal"], ["gift_card"], ["credit_card", "gift_card"],
                    ["paypal", "gift_card"], ["credit_card", "paypal"], ["credit_card", "credit_card"],
                    ["credit_card", "paypal", "gift_card"]]
# the status an order is created in before a tool moves it to its planned status
_BASE_STATUS: dict[str, OrderStatus] = {"processed": "processed", "delivered": "delivered",
                                        "return requested": "delivered", "exchange requested": "delivered"}
_WORKING_BALANCE = 1_000_000.0  # gift cards can pay anything while derived orders are built


class _Builder:
    """Holds the random source and the ids handed out so far (ids are unique database-wide)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def new_id(self, digits: int, prefix: str = "") -> str:
        while True:
            candidate = prefix + str(self.rng.randrange(10 ** (digits - 1), 10**digits))
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate

    def products(self, count: int) -> dict[str, Product]:
        out: dict[str, Product] = {}
        for name in list(PRODUCTS)[:count]:
            base, options = PRODUCTS[name]
            combos = list(itertools.product(*options.values()))
            chosen = self.rng.sample(combos, min(len(combos), self.rng.randint(6, 10)))
            # at least one variant out of stock, at least three in stock
            unavailable = set(self.rng.sample(range(len(chosen)), max(1, len(chosen) // 4)))
            variants: dict[str, Variant] = {}
            for i, combo in enumerate(chosen):
                item_id = self.new_id(10)
                variants[item_id] = Variant(item_id=item_id, options=dict(zip(options, combo, strict=True)),
                                            available=i not in unavailable,
                                            price=cents(base * self.rng.uniform(0.85, 1.2)))
            product_id = self.new_id(10)
            out[product_id] = Product(name=name, product_id=product_id, variants=variants)
        return out

    def address(self) -> Address:
        city, state, zip_prefix = self.rng.choice(CITIES)
        number = self.rng.randrange(100, 1000)
        address2 = self.rng.choice(["", f"Apt {number % 90 + 1}", f"Suite {number}"])
        return Address(address1=f"{self.rng.randrange(10, 2000)} {self.rng.choice(STREETS)}", address2=address2,
                       city=city, country="USA", state=state, zip=f"{zip_prefix}{self.rng.randrange(100):02d}")

    def payment_method(self, kind: str) -> CreditCard | Paypal | GiftCard:
        pm_id = self.new_id(7, f"{kind}_")
        if kind == "credit_card":
            return CreditCard(source="credit_card", id=pm_id, brand=self.rng.choice(CARD_BRANDS),
                              last_four=f"{self.rng.randrange(10000):04d}")
        if kind == "paypal":
            return Paypal(source="paypal", id=pm_id)
        return GiftCard(source="gift_card", id=pm_id, balance=_WORKING_BALANCE)

    def users(self, count: int) -> dict[str, User]:
        out: dict[str, User] = {}
        taken: set[tuple[str, str, str]] = set()
        for i in range(count):
            if i == 1:  # a namesake of the first user, told apart only by the zip code
                first, last = out[next(iter(out))].name.first_name, out[next(iter(out))].name.last_name
            else:
                first, last = self.rng.choice(FIRST_NAMES), self.rng.choice(LAST_NAMES)
            address = self.address()
            while (first, last, address.zip) in taken:
                address = self.address()
            taken.add((first, last, address.zip))
            user_id = self.new_id(4, f"{first.lower()}_{last.lower()}_")
            email = self.new_id(4, f"{first.lower()}.{last.lower()}") + "@example.com"
            methods = [self.payment_method(kind) for kind in self.rng.choice(PAYMENT_PATTERNS)]
            out[user_id] = User(user_id=user_id, name=UserName(first_name=first, last_name=last), address=address,
                                email=email, payment_methods={m.id: m for m in methods}, orders=[])
        return out

    def order_items(self, products: list[Product], index: int) -> list[OrderItem]:
        def line(product: Product, variant: Variant) -> OrderItem:
            return OrderItem(name=product.name, product_id=product.product_id, item_id=variant.item_id,
                             price=variant.price, options=dict(variant.options))

        count = self.rng.choices([1, 2, 3, 4, 5], weights=[30, 30, 20, 12, 8])[0]
        picks = [self.rng.choice(products) for _ in range(count)]
        lines = [line(p, self.rng.choice(list(p.variants.values()))) for p in picks]
        if index % 12 == 5:  # a second, different variant of the same product
            first = picks[0]
            other = self.rng.choice([v for v in first.variants.values() if v.item_id != lines[0].item_id])
            lines.append(line(first, other))
        if index % 20 == 9:  # two units of the very same item
            lines.append(lines[0].model_copy(deep=True))
        return lines


def _status_plan(builder: _Builder, orders: int) -> list[str]:
    counts = {status: max(1, round(share * orders)) for status, share in STATUS_SHARES.items()}
    plan = [status for status, n in counts.items() for _ in range(n)]
    plan += ["pending"] * (orders - len(plan))
    builder.rng.shuffle(plan)
    return plan


def _alternatives(db: RetailDB, item: OrderItem) -> list[Variant]:
    """Other in-stock variants of the item's product (what a modification or exchange may pick)."""
    return [v for v in db.products[item.product_id].variants.values() if v.available and v.item_id != item.item_id]


def _apply_derived_status(builder: _Builder, tools: RetailTools, order: Order, status: str) -> None:
    """Bring a pending/delivered order into ``status`` by calling the tool that does so."""
    rng, db = builder.rng, tools.db
    original = order.payment_history[0].payment_method_id
    if status == "cancelled":
        tools.cancel_pending_order(order.order_id, rng.choice(CANCEL_REASONS))
        return
    lines = rng.sample(order.items, rng.randint(1, min(2, len(order.items))))
    item_ids = [line.item_id for line in lines]
    if status == "return requested":
        tools.return_delivered_order_items(order.order_id, item_ids, original)
        return
    new_ids = [rng.choice(_alternatives(db, line)).item_id for line in lines]
    if status == "pending (item modified)":
        tools.modify_pending_order_items(order.order_id, item_ids, new_ids, original)
    else:
        tools.exchange_delivered_order_items(order.order_id, item_ids, new_ids, original)


def _gift_card(builder: _Builder, user: User) -> GiftCard:
    """The user's first gift card, adding one to the profile if they have none."""
    for method in user.payment_methods.values():
        if isinstance(method, GiftCard):
            return method
    card = builder.payment_method("gift_card")
    assert isinstance(card, GiftCard)
    user.payment_methods[card.id] = card
    return card


def _set_gift_card_balances(builder: _Builder, db: RetailDB) -> None:
    """Ordinary balances for all cards, then the three edge cases on owners of pending orders."""
    rng = builder.rng
    for user in db.users.values():
        for method in user.payment_methods.values():
            if isinstance(method, GiftCard):
                kind = rng.choices(["zero", "small", "medium"], weights=[1, 4, 5])[0]
                method.balance = {"zero": 0.0, "small": float(rng.randint(5, 60)),
                                  "medium": float(rng.randint(60, 500))}[kind]
    owners: list[str] = []
    for order in db.orders.values():
        if order.status == "pending" and order.user_id not in owners:
            owners.append(order.user_id)

    def increase(user_id: str) -> float:
        """The largest price increase an item of the user's pending orders can get."""
        return max((v.price - line.price for o in db.orders.values() if o.user_id == user_id and o.status == "pending"
                    for line in o.items for v in _alternatives(db, line)), default=0.0)

    zero_owner = owners[0]
    short_owner = max(owners[1:], key=increase)
    large_owner = next(u for u in owners[1:] if u != short_owner)
    _gift_card(builder, db.users[zero_owner]).balance = 0.0
    _gift_card(builder, db.users[short_owner]).balance = float(max(1, math.floor(increase(short_owner) / 2)))
    largest_total = max(sum(line.price for line in o.items) for o in db.orders.values())
    _gift_card(builder, db.users[large_owner]).balance = float(math.ceil(largest_total / 1000) * 1000 + 1000)


def generate_retail_db(seed: int = 7, users: int = 50, orders: int = 150, products: int = 20) -> RetailDB:
    """A deterministic retail database in the τ²-bench format (see the module docstring)."""
    if not 1 <= products <= len(PRODUCTS):
        raise UserError(f"products must be between 1 and {len(PRODUCTS)}", field="products", fix=f"got {products}")
    if users < 3 or orders < 3 * len(STATUS_SHARES):
        raise UserError("too small to hold every status and edge case", field="users/orders",
                        fix=f"use at least 3 users and {3 * len(STATUS_SHARES)} orders")
    builder = _Builder(seed)
    db = RetailDB(products=builder.products(products), users=builder.users(users), orders={})
    product_list, user_ids = list(db.products.values()), list(db.users)
    owners = [builder.rng.choice(user_ids) for _ in range(orders)]
    busiest = db.users[max(user_ids, key=owners.count)]  # gets every payment type
    for kind in ("credit_card", "paypal", "gift_card"):
        if not any(m.source == kind for m in busiest.payment_methods.values()):
            method = builder.payment_method(kind)
            busiest.payment_methods[method.id] = method
    plan = _status_plan(builder, orders)
    tools = RetailTools(db)
    for index, (owner, status) in enumerate(zip(owners, plan, strict=True)):
        user = db.users[owner]
        items = builder.order_items(product_list, index)
        base = _BASE_STATUS.get(status, "pending")
        fulfillments = [] if base == "pending" else [
            Fulfillment(tracking_id=[builder.new_id(12)], item_ids=[line.item_id for line in items])]
        address = user.address if builder.rng.random() < 0.9 else builder.address()
        order = Order(order_id=builder.new_id(7, "#W"), user_id=owner, address=address.model_copy(), items=items,
                      status=base, fulfillments=fulfillments,
                      payment_history=[Payment(transaction_type="payment", amount=cents(sum(i.price for i in items)),
                                               payment_method_id=builder.rng.choice(list(user.payment_methods)))])
        db.orders[order.order_id] = order
        user.orders.append(order.order_id)
        if status != base:
            _apply_derived_status(builder, tools, order, status)
    _set_gift_card_balances(builder, db)
    return db


def write_reference_db(path: Path | str | None = None, seed: int = 7) -> Path:
    """Generate the database with ``seed`` and write it to ``path`` (default: the shipped file)."""
    target = Path(path) if path is not None else default_db_path()
    generate_retail_db(seed=seed).save(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write adat's generated retail database (τ²-bench format).")
    parser.add_argument("path", nargs="?", default=None, help="output file; default: the shipped db.json")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print(write_reference_db(args.path, seed=args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
