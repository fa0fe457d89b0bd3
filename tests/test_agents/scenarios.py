"""Find the database entities a scripted conversation needs (so scripts survive a regenerated db).

Each finder returns the first match in file order, so the scripts are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable

from adat_reference.retail.database import Order, OrderItem, Product, RetailDB, User, Variant


class Finder:
    """Queries over a retail database for test scenarios."""

    def __init__(self, db: RetailDB) -> None:
        self.db = db

    def orders_of(self, user: User, status: str | None = None) -> list[Order]:
        orders = [self.db.orders[o] for o in user.orders if o in self.db.orders]
        return [o for o in orders if status is None or o.status == status]

    def user_order(self, status: str, where: Callable[[User, Order], bool] = lambda u, o: True) -> tuple[User, Order]:
        """A user and one of their orders with ``status`` satisfying ``where``."""
        for user in self.db.users.values():
            for order in self.orders_of(user, status):
                if where(user, order):
                    return user, order
        raise LookupError(f"no order with status {status!r} fits the scenario")

    def other_user(self, user: User) -> User:
        return next(u for u in self.db.users.values() if u.user_id != user.user_id and u.orders)

    def other_users_order(self, user: User) -> Order:
        return next(o for o in self.db.orders.values() if o.user_id != user.user_id)

    def product(self, line: OrderItem) -> Product:
        return self.db.products[line.product_id]

    def variant(self, line: OrderItem, available: bool) -> Variant | None:
        """Another variant of the line's product with the given availability."""
        return next((v for v in self.product(line).variants.values()
                     if v.item_id != line.item_id and v.available == available), None)

    def line_with_variant(self, order: Order, available: bool) -> tuple[OrderItem, Variant] | None:
        for line in order.items:
            variant = self.variant(line, available)
            if variant is not None:
                return line, variant
        return None

    def foreign_variant(self, line: OrderItem) -> Variant:
        """An available item of another product."""
        return next(v for p in self.db.products.values() if p.product_id != line.product_id
                    for v in p.variants.values() if v.available)

    def missing_order_id(self) -> str:
        return next(f"#W{n:07d}" for n in range(1000000, 9999999) if f"#W{n:07d}" not in self.db.orders)

    def foreign_item_id(self, order: Order) -> str:
        held = {line.item_id for line in order.items}
        return next(v.item_id for p in self.db.products.values() for v in p.variants.values() if v.item_id not in held)


def login(user: User) -> str:
    return f"Hi, my email is {user.email}."


def gift_card(user: User) -> tuple[str, float] | None:
    """(id, balance) of the user's first gift card."""
    for method in user.payment_methods.values():
        if method.source == "gift_card":
            return method.id, method.balance
    return None


def single_payment(order: Order) -> bool:
    return len(order.payment_history) == 1 and order.payment_history[0].transaction_type == "payment"


def total(order: Order) -> float:
    return order.payment_history[0].amount
