"""Which order a request is about, and the order-level rules: existence, ownership, status."""

from __future__ import annotations

from adat.errors import ToolError
from adat_reference.agent.formatting import order_line
from adat_reference.agent.items import mentioned_lines
from adat_reference.agent.session import Session, Task
from adat_reference.retail.database import Order

ITEM_MODIFIED = "pending (item modified)"
VERB = {"cancel": "cancel", "modify_address": "change the address of", "modify_payment": "change the payment of",
        "modify_items": "modify", "change_items": "change items of", "exchange": "exchange items of",
        "return": "return items of", "order_info": "look up"}


def fits(kind: str, status: str) -> bool:
    """Whether an order in ``status`` is a plausible target of a request of ``kind``."""
    if kind == "cancel":
        return status == "pending"
    if kind in ("modify_address", "modify_payment", "modify_items"):
        return status.startswith("pending")
    if kind in ("return", "exchange"):
        return status == "delivered"
    if kind == "change_items":
        return status.startswith("pending") or status == "delivered"
    return True


def infer_order(s: Session, task: Task) -> str | None:
    """Pick the order from the products the user named, or their only fitting order; else ask.

    Returns a sentence for the user (what was found, or the question), or None when nothing to say.
    """
    user = s.user
    assert user is not None
    orders = [s.db.orders[o] for o in user.orders if o in s.db.orders]
    text = " ".join(task.texts)
    named = [o for o in orders if mentioned_lines(o, text)]
    candidates = [o for o in named if fits(task.kind, o.status)] or named
    if not named:
        candidates = [o for o in orders if fits(task.kind, o.status)]
    if len(candidates) == 1 and "order_denied" not in task.ok:
        task.order_id = candidates[0].order_id
        return f"I found your order {order_line(candidates[0])}."
    listed = candidates or orders
    verb = VERB.get(task.kind, "help with")
    return (f"Which order would you like to {verb}? Your orders: "
            f"{', '.join(order_line(o) for o in listed) or 'none'}.")


def _drop(s: Session, task: Task) -> None:
    """A refused request ends; the user asks again (for another order) if they want."""
    if task in s.tasks:
        s.tasks.remove(task)


def _modifications(order: Order) -> int:
    return 1 if order.status == ITEM_MODIFIED else 0


def check_order(s: Session, task: Task) -> str | None:
    """Run the order-level rules for the task's order; a denial sentence, or None when all pass.

    A ``change_items`` task becomes ``modify_items`` (pending order) or ``exchange`` (delivered).
    """
    order = s.order(task.order_id)
    order_id = task.order_id or ""
    exists = s.holds("order_exists", order is not None)
    if not exists or order is None:
        task.order_id = None
        task.ok.add("order_denied")  # the user may correct the id; never pick another order for them
        return lookup_failure(s, order_id) if exists else s.say("order_exists", order_id=order_id)
    assert s.user is not None
    if not s.holds("order_owner", order.user_id == s.user.user_id):
        _drop(s, task)
        return s.say("order_owner", order_id=order_id)
    status = order.status
    if task.kind == "change_items":
        if status.startswith("pending"):
            task.kind = "modify_items"
            if not s.check("modify_scope", lambda p: "item options" in p["allowed_changes"]):
                _drop(s, task)
                return s.say("modify_scope")
        elif status in ("delivered", "exchange requested", "return requested"):
            task.kind = "exchange"
    denial = _status_denial(s, task.kind, order)
    if denial is not None:
        _drop(s, task)
        return denial
    task.ok.add("order")
    return None


def lookup_failure(s: Session, order_id: str) -> str:
    """When a fault takes a missing order id as valid: the agent asks the order tool, which refuses."""
    try:
        s.call("get_order_details", order_id=order_id)
    except ToolError as exc:
        return f"I'm sorry, I could not look up order {order_id}: the system reported '{exc}'."
    return f"I could not use order {order_id}."


def _status_denial(s: Session, kind: str, order: Order) -> str | None:
    values = {"order_id": order.order_id, "status": f"'{order.status}'"}
    if kind == "cancel":
        if not s.check("cancel_requires_pending", lambda p: order.status in p["statuses"]):
            return s.say("cancel_requires_pending", **values)
        return None
    if kind in ("modify_address", "modify_payment", "modify_items", "change_items"):
        base = order.status.split(" (")[0]
        if not s.check("modify_requires_pending", lambda p: base in p["statuses"]):
            return s.say("modify_requires_pending", **values)
        if kind == "modify_items" and not s.check(
                "items_modified_once", lambda p: _modifications(order) < p["max_modifications"]):
            return s.say("items_modified_once", **values)
        return None
    if kind in ("return", "exchange"):
        if not s.check("one_return_or_exchange", lambda p: order.status not in p["closed_statuses"]):
            return s.say("one_return_or_exchange", **values)
        rule = "return_requires_delivered" if kind == "return" else "exchange_requires_delivered"
        if not s.check(rule, lambda p: order.status in p["statuses"]):
            return s.say(rule, **values)
    return None
