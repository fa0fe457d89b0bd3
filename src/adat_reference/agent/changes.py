"""Item-level rules for modifications, exchanges and returns, and the payment method they use."""

from __future__ import annotations

import re
from collections import Counter

from adat_reference.agent.entities import ten_digit_ids
from adat_reference.agent.formatting import (
    and_list,
    item_text,
    method_text,
    methods_text,
    money,
    options_text,
)
from adat_reference.agent.items import mentioned_lines, pair_requests, product_of_item, return_lines
from adat_reference.agent.nlu import ALL_ITEMS, EXCEPT
from adat_reference.agent.payments import original_method_id, resolve
from adat_reference.agent.rules import Predicate
from adat_reference.agent.session import Session, Task
from adat_reference.retail.database import Order, Product, RetailDB

ONLY = re.compile(r"\bonly\b", re.IGNORECASE)


def available_options(product: Product) -> str:
    listed = [f"{options_text(v.options)} ({money(v.price)}, item {v.item_id})"
              for v in product.variants.values() if v.available]
    return "; ".join(listed) or "none right now"


def order_items(order: Order) -> str:
    return "; ".join(item_text(line) for line in order.items)


def absorb_pairs(s: Session, task: Task, order: Order, text: str, numbers: list[str]) -> list[str]:
    """Add the item changes the text asks for to the task, each checked against the item rules."""
    out: list[str] = []
    modify = task.kind == "modify_items"
    same_rule = "modify_same_product" if modify else "exchange_same_product"
    action = "modify" if modify else "exchange"
    for req in pair_requests(s.db, order, text, numbers, [old for old, _ in task.pairs]):
        line = req.line
        if not s.holds("items_in_order", line is not None):
            out.append(s.say("items_in_order", item_id=req.old_id, order_id=order.order_id, action=action,
                             order_items=order_items(order)))
            continue
        if line is None:  # a fault takes an item that is not in the order: the agent has no line to change
            out.append(f"Which item would you like instead of item {req.old_id}? I don't see its options in "
                       f"order {order.order_id}; please give me the new item id.")
            continue
        product = s.db.products[line.product_id]
        if req.new_id is None:
            if req.mentioned_values:
                s.holds("new_item_available", False)
                out.append(s.say("new_item_available", product=product.name, options="the options you described",
                                 action=action, available=available_options(product)))
            else:
                out.append(f"Which option would you like instead of your {item_text(line)}? "
                           f"Available options: {available_options(product)}.")
            continue
        new_product = product_of_item(s.db, req.new_id)
        if new_product is None:
            s.holds("new_item_available", False)
            out.append(s.say("new_item_available", product=product.name, options=f"item id {req.new_id}",
                             action=action, available=available_options(product)))
            continue
        if not s.check(same_rule, _same_product(new_product.product_id == product.product_id)):
            out.append(s.say(same_rule, new_item_id=req.new_id, new_product=new_product.name, product=product.name))
            continue
        variant = new_product.variants[req.new_id]
        if not s.holds("new_item_different", req.new_id != req.old_id):
            out.append(s.say("new_item_different", item_id=req.old_id, product=product.name,
                             options=options_text(variant.options)))
            continue
        if not s.holds("new_item_available", variant.available):
            out.append(s.say("new_item_available", product=new_product.name, options=options_text(variant.options),
                             action=action, available=available_options(new_product)))
            continue
        task.pairs.append((req.old_id, req.new_id))
    return out


def _same_product(same: bool) -> Predicate:
    return lambda params: same or not params["same_product_only"]


def line_or_catalogue(db: RetailDB, order: Order, item_id: str) -> tuple[str, float]:
    """(description, price) of an item: its order line, or (when a fault takes an item the order
    does not hold) its catalogue variant."""
    line = next((ln for ln in order.items if ln.item_id == item_id), None)
    if line is not None:
        return item_text(line), line.price
    product = product_of_item(db, item_id)
    if product is None:
        return f"item {item_id}", 0.0
    variant = product.variants[item_id]
    return item_text(variant, product.name), variant.price


def price_difference(s: Session, order: Order, pairs: list[tuple[str, str]]) -> float:
    """New minus old price over the pairs (positive: the user pays)."""
    free = list(order.items)
    total = 0.0
    for old_id, new_id in pairs:
        line = next(ln for ln in free if ln.item_id == old_id)
        free.remove(line)
        product = product_of_item(s.db, new_id)
        if product is not None:
            total += product.variants[new_id].price - line.price
    return round(total, 2) + 0.0


def absorb_return_items(s: Session, task: Task, order: Order, text: str) -> list[str]:
    """Add the items the text names to the task's return list, each checked to be in the order."""
    out: list[str] = []
    held = Counter(line.item_id for line in order.items)
    except_match = EXCEPT.search(text)
    wanted = return_lines(order, text, ten_digit_ids(text), bool(ALL_ITEMS.search(text)),
                          except_match.group("rest") if except_match else "")
    for item_id in wanted:
        if not s.holds("items_in_order", task.items.count(item_id) < held[item_id]):
            if held[item_id] == 0:
                out.append(s.say("items_in_order", item_id=item_id, order_id=order.order_id, action="return",
                                 order_items=order_items(order)))
            continue
        task.items.append(item_id)
    return out


def restrict_to_named(task: Task, order: Order, text: str) -> bool:
    """'only the desk lamp': keep just the named products' changes. True when something was dropped."""
    if not ONLY.search(text):
        return False
    named = {line.product_id for _, line in mentioned_lines(order, text)}
    if not named:
        return False
    product = {line.item_id: line.product_id for line in order.items}
    before = (len(task.pairs), len(task.items))
    task.pairs = [pair for pair in task.pairs if product.get(pair[0]) in named]
    task.items = [item for item in task.items if product.get(item) in named]
    return before != (len(task.pairs), len(task.items))


def choose_payment(s: Session, task: Task, order: Order, *, amount: float, purpose: str) -> str | None:
    """Resolve the payment method named for ``purpose``; a sentence when it cannot be used (or to ask)."""
    user = s.user
    assert user is not None
    if not task.refs:
        return (f"Which payment method should {purpose}? Your saved payment methods: {methods_text(user)}.")
    choice = resolve(task.refs[0], user, order)
    task.refs = []
    if choice.candidates:
        return f"You have several of those; which one should I use: {and_list([method_text(m) for m in choice.candidates])}?"
    if not s.holds("payment_in_profile", choice.method_id is not None):
        return s.say("payment_in_profile", requested=choice.requested, methods=methods_text(user))
    if choice.method_id is None:  # a fault takes a method that is not in the profile: use it as named
        task.payment_id = choice.requested
        return None
    method = user.payment_methods[choice.method_id]
    if task.kind == "return":
        original = original_method_id(order) or ""
        if not s.check("return_refund_destination", lambda p: choice.method_id == original
                       or method.source in p["other_sources"]):
            original_text = method_text(user.payment_methods[original]) if original in user.payment_methods else original
            return s.say("return_refund_destination", original=original_text, requested=method_text(method))
    if method.source == "gift_card" and amount > 0:
        balance = getattr(method, "balance", 0.0)
        if not s.check("gift_card_balance", lambda p: not p["check_balance"] or balance >= amount):
            return s.say("gift_card_balance", card=method.id, balance=money(balance), amount=money(amount))
    task.payment_id = choice.method_id
    return None
