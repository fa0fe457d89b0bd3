"""Working through one write request: collect its details, check each rule, confirm, execute."""

from __future__ import annotations

import contextlib
from typing import Any

from adat.errors import ToolError
from adat_reference.agent import changes, silent
from adat_reference.agent.authentication import require_auth
from adat_reference.agent.entities import ten_digit_ids
from adat_reference.agent.formatting import (
    address_text,
    and_list,
    item_text,
    method_text,
    methods_text,
    money,
)
from adat_reference.agent.orders import check_order, infer_order
from adat_reference.agent.payments import distinct_methods, original_method_id, resolve
from adat_reference.agent.session import Session, Task
from adat_reference.retail.database import Order

ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")


def advance(s: Session, task: Task) -> str:
    """Move the task on with what is known; the agent's reply (a question, a refusal, a confirmation)."""
    gate = require_auth(s, task.describe(), order_id=task.order_id, log_allowed=not task.auth_logged)
    if gate is not None:
        return gate
    task.auth_logged = True
    if task.kind == "user_address":
        user = s.user
        assert user is not None
        return _address(s, task, user.address.model_dump(), "modify_user_address", {"user_id": user.user_id},
                        "your default address")
    out: list[str] = []
    if task.order_id is None:
        note = infer_order(s, task)
        if task.order_id is None:
            return note or ""
        out.append(note or "")
    if "order" not in task.ok:
        denial = check_order(s, task)
        if denial is not None:
            return _join(out + [denial])
    order = s.order(task.order_id)
    assert order is not None
    out.append(_advance_on_order(s, task, order))
    return _join(out)


def _advance_on_order(s: Session, task: Task, order: Order) -> str:
    if task.kind == "cancel":
        return _cancel(s, task, order)
    if task.kind == "modify_address":
        return _address(s, task, order.address.model_dump(), "modify_pending_order_address",
                        {"order_id": order.order_id}, f"the shipping address of order {order.order_id}")
    if task.kind == "modify_payment":
        return _payment(s, task, order)
    if task.kind in ("modify_items", "exchange"):
        return _item_change(s, task, order)
    if task.kind == "return":
        return _return(s, task, order)
    return s.say("modify_requires_pending", order_id=order.order_id, status=f"'{order.status}'")


def _cancel(s: Session, task: Task, order: Order) -> str:
    if task.reason is None:
        return s.say("cancel_reason_accepted", "ask", order_id=order.order_id)
    if "reason" not in task.ok:
        reason = task.reason
        if not s.check("cancel_reason_accepted", lambda p: reason in p["reasons"] or p["accept_any_reason"]):
            task.reason = None
            return s.say("cancel_reason_accepted", order_id=order.order_id, reason=reason)
        task.ok.add("reason")
    user = s.user
    assert user is not None
    refunds = and_list([_refund_text(s, pay.amount, pay.payment_method_id)
                        for pay in order.payment_history if pay.transaction_type == "payment"])
    details = (f"Here are the details: cancel order {order.order_id} ({', '.join(i.name for i in order.items)}) "
               f"for the reason '{task.reason}'; the order total is refunded: {refunds}.")
    return confirm(s, task, details, "cancel_pending_order", {"order_id": order.order_id, "reason": task.reason},
                   f"Order {order.order_id} is now cancelled; refund: {refunds}.")


def _refund_text(s: Session, amount: float, method_id: str) -> str:
    when = "at once" if method_id.startswith("gift_card") else "within 5 to 7 business days"
    return f"{money(amount)} to your {_method(s, method_id)} {when}"


def _method(s: Session, method_id: str) -> str:
    user = s.user
    method = user.payment_methods.get(method_id) if user else None
    if method is not None:
        return method_text(method)
    words = method_id.split(" ", 1)  # a method named but not in the profile: 'a PayPal account'
    return words[1] if len(words) == 2 and words[0] in ("a", "an", "the") else method_id


def _address(s: Session, task: Task, current: dict[str, str], tool: str, key: dict[str, Any], what: str) -> str:
    if not task.address:
        return s.say("address_complete", "ask", what=what)
    if "address" not in task.ok:
        given = dict(task.address)
        missing = [f for f in s.engine.original.rules["address_complete"].params["required_fields"]
                   if not given.get(f)]
        if not s.check("address_complete", lambda p: all(given.get(f) for f in p["required_fields"])):
            return s.say("address_complete", missing=and_list([_FIELD_WORDS[f] for f in missing]), what=what)
        task.ok.add("address")
        for field_name in missing:  # only reached when a fault accepts a partial address
            task.address[field_name] = current.get(field_name, "")
        task.address.setdefault("address2", "")
        task.address.setdefault("country", s.param("address_complete", "default_country"))
    new = {f: task.address.get(f, "") for f in ADDRESS_FIELDS}
    details = f"Here are the details: change {what} from {address_text(current)} to {address_text(new)}."
    return confirm(s, task, details, tool, {**key, **new}, f"Done: {what} is now {address_text(new)}.")


_FIELD_WORDS = {"address1": "street address", "city": "city", "state": "state", "zip": "zip code",
                "country": "country", "address2": "apartment or suite"}


def _payment(s: Session, task: Task, order: Order) -> str:
    user = s.user
    assert user is not None
    original = original_method_id(order) or ""
    amount = order.payment_history[0].amount if order.payment_history else 0.0
    if task.payment_id is None:
        if task.refs:
            several = len(distinct_methods(task.refs, user, order)) > 1 or task.split_payment
            if not s.holds("payment_change_single", not several):
                task.refs = []
                return s.say("payment_change_single", methods=methods_text(user))
            chosen = resolve(task.refs[0], user, order).method_id
            if chosen is not None and not s.holds("payment_change_different", chosen != original):
                task.refs = []
                return s.say("payment_change_different", order_id=order.order_id, current=_method(s, original))
        ask = changes.choose_payment(s, task, order, amount=amount,
                                     purpose=f"pay for order {order.order_id} instead of your {_method(s, original)}")
        if ask is not None:
            return ask
    assert task.payment_id is not None
    details = (f"Here are the details: pay order {order.order_id} ({money(amount)}) with your "
               f"{_method(s, task.payment_id)} instead of your {_method(s, original)}, which gets a refund of "
               f"{_refund_text(s, amount, original)}. The order stays pending.")
    return confirm(s, task, details, "modify_pending_order_payment",
                   {"order_id": order.order_id, "payment_method_id": task.payment_id},
                   f"Done: order {order.order_id} is now paid with your {_method(s, task.payment_id)}.")


def _item_change(s: Session, task: Task, order: Order) -> str:
    out: list[str] = []
    if task.texts:
        text = " ".join(task.texts)
        task.texts = []
        out += changes.absorb_pairs(s, task, order, text, ten_digit_ids(text))
    modify = task.kind == "modify_items"
    if not task.pairs:
        if not out:
            out.append(f"Which items of order {order.order_id} would you like to {'change' if modify else 'exchange'}, "
                       f"and to which options? The order holds: {changes.order_items(order)}.")
        return _join(out)
    diff = changes.price_difference(s, order, task.pairs)
    if task.payment_id is None:
        owed = f"you pay {money(diff)}" if diff > 0 else f"you get {money(abs(diff))} back"
        ask = changes.choose_payment(s, task, order, amount=diff,
                                     purpose=f"settle the price difference ({owed})")
        if ask is not None:
            verb = "change" if modify else "exchange"
            return _join(out + [f"You would {verb}: {_pairs_text(s, order, task.pairs)}.", ask])
    assert task.payment_id is not None
    settle = (f"you pay {money(diff)} with your {_method(s, task.payment_id)}" if diff > 0 else
              f"{money(abs(diff))} is refunded to your {_method(s, task.payment_id)}")
    remind = s.say("items_modified_once" if modify else "one_return_or_exchange", "remind")
    details = (f"Here are the details: {'modify' if modify else 'exchange'} in order {order.order_id}: "
               f"{_pairs_text(s, order, task.pairs)}; {settle}. {remind}")
    tool = "modify_pending_order_items" if modify else "exchange_delivered_order_items"
    args = {"order_id": order.order_id, "item_ids": [old for old, _ in task.pairs],
            "new_item_ids": [new for _, new in task.pairs], "payment_method_id": task.payment_id}
    done = (f"Done: the items of order {order.order_id} are modified." if modify else
            f"Done: the exchange for order {order.order_id} is requested; you will receive an email with "
            f"instructions for sending the items back.")
    return _join(out + [confirm(s, task, details, tool, args, done)])


def _pairs_text(s: Session, order: Order, pairs: list[tuple[str, str]]) -> str:
    parts = []
    for old_id, new_id in pairs:
        line = next(ln for ln in order.items if ln.item_id == old_id)
        product = changes.product_of_item(s.db, new_id)
        new = product.variants[new_id] if product else None
        parts.append(f"{item_text(line)} -> {item_text(new, product.name) if new and product else new_id}")
    return "; ".join(parts)


def _return(s: Session, task: Task, order: Order) -> str:
    out: list[str] = []
    if task.texts:
        text = " ".join(task.texts)
        task.texts = []
        out += changes.absorb_return_items(s, task, order, text)
    if not task.items:
        if not out:
            out.append(f"Which items of order {order.order_id} would you like to return? "
                       f"The order holds: {changes.order_items(order)}.")
        return _join(out)
    lines = [changes.line_or_catalogue(s.db, order, i) for i in task.items]
    total = round(sum(price for _, price in lines), 2)
    listed = "; ".join(text for text, _ in lines)
    if task.payment_id is None:
        user = s.user
        assert user is not None
        original = original_method_id(order) or ""
        cards = [method_text(m) for m in user.payment_methods.values() if m.source == "gift_card"]
        if not task.refs:
            return _join(out + [f"You would return: {listed}.", s.say(
                "return_refund_destination", "ask", original=_method(s, original),
                gift_cards=and_list(cards) if cards else "you have none")])
        ask = changes.choose_payment(s, task, order, amount=0.0, purpose="receive the refund")
        if ask is not None:
            return _join(out + [ask])
    assert task.payment_id is not None
    details = (f"Here are the details: return from order {order.order_id}: {listed}; the refund of "
               f"{money(total)} goes to your {_method(s, task.payment_id)}.")
    args = {"order_id": order.order_id, "item_ids": list(task.items), "payment_method_id": task.payment_id}
    done = (f"Done: the return for order {order.order_id} is requested; you will receive an email with "
            f"instructions for sending the items back, and {money(total)} will be refunded.")
    return _join(out + [confirm(s, task, details, "return_delivered_order_items", args, done)])


def confirm(s: Session, task: Task, details: str, tool: str, args: dict[str, Any], done: str) -> str:
    """Ask for an explicit yes (or, when a fault drops that rule, write at once)."""
    if s.engine.peek("confirm_before_write", lambda p: not p["required"]):
        s.check("confirm_before_write", lambda p: not p["required"])
        return execute(s, task, tool, args, done)
    task.write = (tool, args, done)
    if silent.active(s, "write_before_confirmation"):  # asks for the yes it does not wait for
        silent.took_effect(s)
        with contextlib.suppress(ToolError):  # a refused call is made again on the yes, as the original makes it
            _write(s, tool, args)
            task.written = True
    return _join([details, s.say("confirm_before_write", "ask")])


def execute(s: Session, task: Task, tool: str, args: dict[str, Any], done: str) -> str:
    """Call the write tool; the task ends either way."""
    if task in s.tasks:
        s.tasks.remove(task)
    if task.written:  # a silent fault already made this call; the reply is the original's
        return done
    try:
        _write(s, tool, args)
    except ToolError as exc:
        return f"I'm sorry, I could not complete this: the system reported '{exc}'. Nothing has been changed."
    return done


def _write(s: Session, tool: str, args: dict[str, Any]) -> None:
    """The write call, as a silent fault may redirect it (:func:`silent.redirect_write`)."""
    tool, args = silent.redirect_write(s, tool, args)
    s.call(tool, **args)


def _join(parts: list[str]) -> str:
    return " ".join(part for part in parts if part)
