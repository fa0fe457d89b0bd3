"""How the reference agent words database facts: money, payment methods, items, addresses, orders."""

from __future__ import annotations

from adat_reference.agent.rules import join_or
from adat_reference.retail.database import Address, Order, OrderItem, PaymentMethod, User, Variant

TRANSFER_MESSAGE = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."
CAPABILITIES = ("cancel or modify pending orders, return or exchange items of delivered orders, update your "
                "default address, and answer questions about your orders, your profile and our products")


def money(amount: float) -> str:
    return f"${amount:,.2f}"


def and_list(words: list[str]) -> str:
    return join_or(words, "and")


def options_text(options: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in options.items())


def item_text(line: OrderItem | Variant, name: str | None = None) -> str:
    """'T-Shirt (color blue, size M; item 1234567890, $50.88)'."""
    label = name or getattr(line, "name", "item")
    return f"{label} ({options_text(line.options)}; item {line.item_id}, {money(line.price)})"


def method_text(method: PaymentMethod) -> str:
    if method.source == "credit_card":
        return f"{method.brand} credit card ending in {method.last_four} ({method.id})"
    if method.source == "gift_card":
        return f"gift card {method.id} (balance {money(method.balance)})"
    return f"PayPal account {method.id}"


def methods_text(user: User) -> str:
    return "; ".join(method_text(m) for m in user.payment_methods.values()) or "none"


def address_text(address: Address | dict[str, str]) -> str:
    data = address.model_dump() if isinstance(address, Address) else address
    parts = [data.get("address1", ""), data.get("address2", ""), data.get("city", ""),
             f"{data.get('state', '')} {data.get('zip', '')}".strip(), data.get("country", "")]
    return ", ".join(p for p in parts if p)


def order_total(order: Order) -> float:
    """What the user paid and was not refunded."""
    paid = sum(p.amount for p in order.payment_history if p.transaction_type == "payment")
    refunded = sum(p.amount for p in order.payment_history if p.transaction_type == "refund")
    return round(paid - refunded, 2)


def order_line(order: Order) -> str:
    """'#W1234567 (pending: T-Shirt, Backpack)'."""
    return f"{order.order_id} ({order.status}: {', '.join(i.name for i in order.items)})"


def order_details(order: Order, user: User) -> str:
    items = "; ".join(item_text(i) for i in order.items)
    paid = order.payment_history[0].payment_method_id if order.payment_history else ""
    method = user.payment_methods.get(paid)
    text = (f"Order {order.order_id} is {order.status}. Items: {items}. Total {money(order_total(order))}"
            f"{', paid with ' + method_text(method) if method else ''}. "
            f"Shipping address: {address_text(order.address)}.")
    tracking = [t for f in order.fulfillments for t in f.tracking_id]
    if tracking:
        text += f" Tracking number{'s' if len(tracking) > 1 else ''}: {', '.join(tracking)}."
    if order.cancel_reason:
        text += f" Cancellation reason: {order.cancel_reason}."
    return text
