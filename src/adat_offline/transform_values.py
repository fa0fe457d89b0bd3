"""Transformations that change one value of the request or the state of the entity it names.

Each applies only when the test carries the value it changes (an order id, a reason, a payment
method, an item, an email, a number) and the statement is about it. Most move the request to
another side or boundary, so the expected behaviour comes from the agent's reply to such a
request in the discovery traces; without one the pair is not applicable.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from adat.contracts.adat2_roles import GeneratedTest, TraceView
from adat_offline import language as lang
from adat_offline.facts import OrderFact
from adat_offline.objectives import OWN_REASON, UNKNOWN_PAYMENT
from adat_offline.observation import QUOTED
from adat_offline.transform_case import PAYMENT_WORDS, Case, Outcome, address_in

LIFECYCLE = ("pending", "processed", "delivered")
DECISIVE = ("refusal", "completion", "confirm", "ask", "missing")  # "ask": goes ahead with a question


def _replace(hints: list[str], old: str, new: str) -> list[str]:
    return [h.replace(old, new) for h in hints]


def _no_reply(what: str) -> str:
    return f"the traces show no agent reply for {what}"


def _orders_with(case: Case, statuses: tuple[str, ...], *, same_account: bool = True) -> list[OrderFact]:
    account = case.account if same_account else None
    pool = account.orders if account is not None else [o for _, o in case.facts.all_orders()]
    return [o for o in pool if o.status in statuses and o.order_id not in case.orders]


def aimed(case: Case, outcomes: list[GeneratedTest]) -> GeneratedTest | None:
    """Among tests a transformation could write, the first on the side the statement's tests do
    not cover yet (``aim_side``: both sides of a boundary), else the first."""
    aim = case.inp.aim_side
    return next((t for t in outcomes if aim and t.expected_side == aim), outcomes[0] if outcomes else None)


#: request kinds whose message names an item of the order
ITEM_KINDS = ("return", "exchange", "modify_items")


def _status_swap(case: Case, statuses: tuple[str, ...], change: str) -> Outcome:
    states = {o.status for _, o in case.facts.all_orders() if o.status}
    if not re.search(r"\bstatus\b", case.about, re.I) and not any(s in case.about.lower() for s in states):
        return "the statement's condition does not depend on an order's status"
    if not case.orders:
        return "the test names no order whose status could change"
    order = case.orders[0]
    status = case.status_of(order)
    if not status:
        return f"the tester facts do not give the status of order {order}"
    outcomes: list[GeneratedTest] = []
    tried: set[str] = set()
    for candidate in _orders_with(case, tuple(s for s in statuses if s != status)):
        if candidate.status in tried:
            continue  # one test per state is enough to know which side it is on
        tried.add(candidate.status)

        def same_status(text: str, trace: TraceView, wanted: str = candidate.status) -> bool:
            return any(case.status_of(o) == wanted and case.owns(o, trace) for o in lang.ORDER_ID.findall(text))
        hints = _replace(case.hints, order, candidate.order_id)
        item = case.items[0] if case.items and case.kind in ITEM_KINDS else ""
        if item and candidate.items and item not in candidate.items:
            if case.kind != "return":  # an exchange or a change names a replacement for this very item
                continue
            hints = _replace(hints, item, candidate.items[0])  # the item must be in the order it names
        found = case.reply_to(same_status, DECISIVE)
        if found:
            outcomes.append(case.expect(hints, found[0],
                                        f"{change}: order {order} ({status}) replaced by {candidate.order_id} "
                                        f"({candidate.status}); expected behaviour from trace {found[1]}"))
    best = aimed(case, outcomes)
    if best is not None:
        return best
    return _no_reply(f"a {(case.kind or 'similar').replace('_', ' ')} request on the user's orders in another status than {status}")


def state_status_change(case: Case) -> Outcome:
    states = case.facts.states()
    return _status_swap(case, states, "another status")


def state_earlier_status(case: Case) -> Outcome:
    status = case.status_of(case.orders[0]) if case.orders else ""
    if status not in LIFECYCLE[1:] and status not in ("return requested", "exchange requested"):
        return "the test's order has no earlier lifecycle stage" if status else "the test names no order with a known status"
    earlier = LIFECYCLE[: LIFECYCLE.index(status)] if status in LIFECYCLE else LIFECYCLE
    return _status_swap(case, earlier, "an earlier lifecycle stage")


def done_states(case: Case) -> tuple[str, ...]:
    """The states of the tester facts that say the request's action was already done to the
    entity (a state naming the action's verb: a cancel request -> a 'cancelled' order)."""
    stem = (case.kind or "").split("_")[0][:5]
    if len(stem) < 5:
        return ()
    return tuple(sorted({o.status for _, o in case.facts.all_orders() if stem in o.status.lower()}))


def state_already_done(case: Case) -> Outcome:
    done = done_states(case)
    if not done:
        return "the tester facts give no entity on which the statement's action was already done"
    return _status_swap(case, done, "the action was already done")


def offered_reasons(case: Case) -> list[str]:
    """The quoted options the agent offered when it asked for a reason, in the discovery traces."""
    found: list[str] = []
    for trace in case.inp.discovery_traces:
        for turn in trace.turns:
            if turn.role == "agent" and lang.ASKS_REASON.search(turn.text) and lang.is_question(turn.text):
                found.extend(q for a, b in QUOTED.findall(turn.text) if (q := a or b) not in found)
    return found


def _reason_swap(case: Case) -> Outcome:
    if case.reason_i is None:
        return "the test gives no reason"
    hint = case.hints[case.reason_i]
    match = re.search(r"\breason(?: is)?:?\s*(.+?)\.?$", hint, re.I)
    if match is None:
        return "the test gives no reason"
    current = match.group(1).strip(" '\"")
    offered = offered_reasons(case)
    # a reason the agent offered becomes one outside its options, and the other way round
    new = OWN_REASON if current.lower() in (o.lower() for o in offered) else (offered[0] if offered else "")
    if not new:
        return "the traces show no options the agent offered for a reason"
    found = case.reply_to(lambda t, _: new.lower() in t.lower(), DECISIVE)
    if not found:
        return _no_reply(f"a request with the reason '{new}'")
    hints = [re.sub(re.escape(current), new, h, flags=re.I) for h in case.hints]
    return case.expect(hints, found[0], f"reason '{current}' changed to '{new}'; expected behaviour from trace "
                                        f"{found[1]}")


def _payment_swap(case: Case, *, refund_only: bool = False) -> Outcome:
    text = " ".join(case.hints)
    if refund_only and case.kind not in ("return", "exchange", "cancel"):
        return "the statement concerns no refund"
    if not PAYMENT_WORDS.search(case.about) or (not case.payments and "original payment" not in text.lower()):
        return "the test names no payment method"
    account = case.account
    if account is None:
        return "the tester facts give no payment methods of the test's user"
    current = case.payments[0] if case.payments else "the original payment method"
    # A change of an order's payment method to the one already paying it is another situation
    # (value-same-as-current): the swap keeps the request a change.
    order = case.order_fact(case.orders[0]) if case.orders and case.kind == "modify_payment" else None
    paying = order.paid_with if order is not None else ""
    outcomes: list[GeneratedTest] = []
    for new in [p for p in account.payment_methods if p not in (current, paying)]:
        found = case.reply_to(_names(new), DECISIVE) or case.reply_to(_mentions(new.split("_")[0]), DECISIVE)
        if found:
            outcomes.append(case.expect(_replace(case.hints, current, new), found[0],
                                        f"payment method {current} replaced by {new}; expected behaviour from "
                                        f"trace {found[1]}"))
    best = aimed(case, outcomes)
    if best is not None:
        return best
    return _no_reply(f"a {(case.kind or 'similar').replace('_', ' ')} request with another of the user's payment methods")


def _names(value: str) -> Callable[[str, TraceView], bool]:
    return lambda text, _: value in text


def _mentions(word: str) -> Callable[[str, TraceView], bool]:
    return lambda text, _: word in text.lower().replace(" ", "_")


def value_change_one(case: Case) -> Outcome:
    reasons, outcomes = [], []
    for change in (_reason_swap, _payment_swap, state_status_change):
        out = change(case)
        if isinstance(out, str):
            reasons.append(out)
        else:
            outcomes.append(out)
    best = aimed(case, outcomes)
    if best is not None:
        return best
    return "no value of the test can be changed with a justified expectation: " + "; ".join(reasons)


def payment_different_method(case: Case) -> Outcome:
    return _payment_swap(case)


def payment_refund_elsewhere(case: Case) -> Outcome:
    return _payment_swap(case, refund_only=True)


_QUANTITY = re.compile(r"\b(\d+)\s+(items?|units?|pieces?|of them)\b|\$\s?\d+(?:\.\d+)?", re.I)


def _numeric(case: Case, new: str) -> Outcome:
    match = next((m for h in case.hints if (m := _QUANTITY.search(h))), None)
    if match is None:
        return "no numeric input in the test"
    found = case.find_reply(r"\b(at least|zero|positive|invalid (amount|quantity)|greater than)\b")
    if not found:
        return _no_reply("a request with an invalid number")
    number = re.search(r"\d+(?:\.\d+)?", match.group(0))
    assert number is not None
    old = match.group(0)
    return case.expect(_replace(case.hints, old, old.replace(number.group(0), new)), found[0],
                       f"numeric input {old} set to {new}")


def value_numeric_zero(case: Case) -> Outcome:
    return _numeric(case, "0")


def value_numeric_negative(case: Case) -> Outcome:
    return _numeric(case, "-1")


def _two_items(case: Case) -> tuple[str, str] | str:
    if case.kind not in ("exchange", "modify_items"):
        return "the request has no pair of related inputs (old and new item)"
    if len(case.items) < 2:
        return "the test does not name both the old and the new item"
    return case.items[0], case.items[1]


def value_make_related_equal(case: Case) -> Outcome:
    pair = _two_items(case)
    if isinstance(pair, str):
        return pair
    found = case.reply_to(case.same_item_twice, DECISIVE, kind=None)
    if not found:
        return _no_reply("a request whose new item equals the old one")
    return case.expect(_replace(case.hints, pair[1], pair[0]), found[0], f"new item set equal to the old item {pair[0]}")


def value_swap_related(case: Case) -> Outcome:
    pair = _two_items(case)
    if isinstance(pair, str):
        return pair
    found = case.reply_to(case.item_not_in_order, DECISIVE, kind=None)
    if not found:
        return _no_reply("a request naming an item from outside the order")
    hints = [h.replace(pair[0], "\0").replace(pair[1], pair[0]).replace("\0", pair[1]) for h in case.hints]
    return case.expect(hints, found[0], f"old item {pair[0]} and new item {pair[1]} swapped")


def _id_swap(case: Case, new_id: str, situation: Callable[[str, TraceView], bool], change: str) -> Outcome:
    if not case.orders:
        return "the test names no entity by id"
    found = case.reply_to(situation, ("refusal", "ask", "auth", "other"), kind=None)
    if not found:
        return _no_reply(f"a request with {change}")
    return case.expect(_replace(case.hints, case.orders[0], new_id), found[0],
                       f"order {case.orders[0]} replaced by {new_id} ({change}); expected behaviour from trace "
                       f"{found[1]}")


def value_nonexistent_id(case: Case) -> Outcome:
    known = {o.order_id for _, o in case.facts.all_orders()}
    new = next(f"#W{d * 7}" for d in "9876543210" if f"#W{d * 7}" not in known)
    return _id_swap(case, new, case.unknown_order, "an order id that does not exist")


def value_wrong_format_id(case: Case) -> Outcome:
    if not case.orders:
        return "the test names no entity by id"
    digits = case.orders[0].lstrip("#W")
    return _id_swap(case, f"W-{digits[:3]}-{digits[3:]}", case.unknown_order, "an order id in a wrong format")


def value_other_users_id(case: Case) -> Outcome:
    if not case.orders:
        return "the test names no entity owned by a user"
    mine = case.account
    status = case.status_of(case.orders[0])
    others = [o for a, o in case.facts.all_orders() if a is not mine and mine is not None]
    others.sort(key=lambda o: o.status != status)
    if not others:
        return "the tester facts give no other user's order"
    return _id_swap(case, others[0].order_id, case.foreign_order, "another user's order")


def without_item(hint: str, item: str) -> str:
    """``hint`` with ``item`` left out, and what depends on it (its replacement) with it: a
    replacement for no item is a request about another item, not one with an input left out."""
    hint = re.sub(rf"\s*(for )?item {re.escape(item)}", "", hint)
    return re.sub(r";?\s*the new items? (is|are) [\w, ]+?(?=[.;]|$)", "", hint)


def value_missing_required(case: Case) -> Outcome:
    if case.reason_i is not None and case.kind == "cancel":
        found = case.find_reply(r"\breason\b", ("ask", "refusal", "other", "confirm"))
        if found:
            hints = [h for i, h in enumerate(case.hints) if i != case.reason_i]
            return case.expect(hints, found[0], "the cancellation reason is left out")
        return _no_reply("a cancellation without a reason")
    if case.items and case.kind in ITEM_KINDS:
        found = case.find_reply(r"which items?|what items?|item ids?", ("ask", "refusal", "other"))
        if found:
            hints = [without_item(h, i) for h in case.hints for i in case.items[:1]]
            return case.expect(hints, found[0], "the item is left out")
        return _no_reply("a request without the item")
    return "the test gives no input beyond the intent that could be left out"


def value_invalid_address(case: Case) -> Outcome:
    address = next((a for h in case.hints if (a := address_in(h)) and lang.ZIP.search(a)), "")
    if not address:
        return "the request includes no complete address"
    found = case.reply_to(case.address_without_zip, ("refusal", "missing", "ask", "other"), kind=None)
    if not found:
        return _no_reply("an incomplete address")
    bad = lang.ZIP.sub("", address).replace(" ,", ",").replace("  ", " ")
    return case.expect(_replace(case.hints, address, bad), found[0], "the new address has no zip code")



def value_invalid_contact(case: Case) -> Outcome:
    email = next((m.group(0) for h in case.hints if (m := lang.EMAIL.search(h))), None)
    if email is None:
        return "the request includes no email address"
    found = case.reply_to(case.unknown_email, ("refusal", "ask", "auth", "other"), kind=None)
    if not found:
        return _no_reply("an email that identifies no user")
    return case.expect(_replace(case.hints, email, email.replace("@", " at ")), found[0],
                       f"the email {email} is malformed", ("auth",))


def state_insufficient_balance(case: Case) -> Outcome:
    account = case.account
    if case.kind not in ("modify_payment", "modify_items", "exchange") or account is None:
        return "the request involves no payment the user chooses"
    gift = min(account.gift_card_balances.items(), key=lambda g: g[1], default=None)
    if gift is None:
        return "the tester facts give no payment method with a known low balance"
    found = case.reply_to(lambda t, _: gift[0] in t, DECISIVE, kind=None)
    if not found:
        return _no_reply("a payment method whose balance is too low")
    current = case.payments[0] if case.payments else ""
    hints = _replace(case.hints, current, gift[0]) if current else [*case.hints[:-1], f"{case.hints[-1]} Please "
                                                                                      f"use {gift[0]}."]
    return case.expect(hints, found[0], f"payment with {gift[0]} (balance ${gift[1]:.2f})")


def payment_method_not_on_file(case: Case) -> Outcome:
    if not case.payments and "payment" not in " ".join(case.hints).lower():
        return "the request involves no payment or refund"
    found = case.reply_to(case.payment_not_on_file, DECISIVE, kind=None)
    if not found:
        return _no_reply("a payment method that is not on file")
    new = UNKNOWN_PAYMENT
    current = case.payments[0] if case.payments else "the original payment method"
    return case.expect(_replace(case.hints, current, new), found[0], f"payment method changed to {new}")
