"""Checks on the items of an order shared by the return, exchange and modify tools."""

from __future__ import annotations

from collections import Counter

from adat.errors import ToolError
from adat_reference.retail.database import Order, OrderItem, Variant


def match_order_lines(order: Order, item_ids: list[str]) -> list[OrderItem]:
    """The order lines the item ids refer to, one distinct line per id (duplicates = several units).

    Raises ToolError naming the first id the order does not hold as often as asked.
    """
    wanted = Counter(item_ids)
    held = Counter(line.item_id for line in order.items)
    for item_id, count in wanted.items():
        if count > held[item_id]:
            have = held[item_id]
            raise ToolError(f"Item {item_id} not found in order {order.order_id}" if have == 0 else
                            f"Order {order.order_id} holds {have} of item {item_id}, not {count}")
    used: set[int] = set()
    lines: list[OrderItem] = []
    for item_id in item_ids:
        index = next(i for i, line in enumerate(order.items) if line.item_id == item_id and i not in used)
        used.add(index)
        lines.append(order.items[index])
    return lines


def cents(amount: float) -> float:
    """``amount`` rounded to cents; ``+ 0.0`` turns -0.0 into 0.0 so equal states hash equally."""
    return round(amount, 2) + 0.0


def price_difference(lines: list[OrderItem], variants: list[Variant]) -> float:
    """New minus old price over the changed lines, rounded to cents (positive = the user pays)."""
    return cents(sum(v.price - line.price for line, v in zip(lines, variants, strict=True)))
