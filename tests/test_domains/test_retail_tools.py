"""Both sides of every retail tool's preconditions, on adat's generated database."""

from __future__ import annotations

import json

import pytest

from adat.errors import ToolError
from adat_reference.retail.database import GiftCard, RetailDB
from adat_reference.retail.tools import TOOL_NAMES, WRITE_TOOLS, RetailTools
from tests.test_domains.retail_helpers import (
    add_paypal,
    alternatives,
    assert_refused,
    ensure_gift_card,
    foreign_item,
    non_gift_methods,
    orders_with,
)


def test_tool_names_and_write_tools() -> None:
    assert len(TOOL_NAMES) == 16 and len(set(TOOL_NAMES)) == 16
    assert {"cancel_pending_order", "modify_pending_order_address", "modify_pending_order_payment",
                           "modify_pending_order_items", "return_delivered_order_items",
                           "exchange_delivered_order_items", "modify_user_address"} == WRITE_TOOLS


# -- identity and read tools ------------------------------------------------------------------------


def test_find_user_by_email_and_by_name_zip(tools: RetailTools, db: RetailDB) -> None:
    user = next(iter(db.users.values()))
    assert tools.call("find_user_id_by_email", {"email": user.email.upper()}) == user.user_id
    assert_refused(tools, "find_user_id_by_email", {"email": "nobody@example.com"}, "User not found")
    args = {"first_name": user.name.first_name, "last_name": user.name.last_name, "zip": user.address.zip}
    assert tools.call("find_user_id_by_name_zip", args) == user.user_id
    assert_refused(tools, "find_user_id_by_name_zip", {**args, "zip": "00000"}, "User not found")


def test_namesakes_are_told_apart_by_zip(tools: RetailTools, db: RetailDB) -> None:
    first, second = list(db.users.values())[:2]
    assert (first.name.first_name, first.name.last_name) == (second.name.first_name, second.name.last_name)
    found = {tools.find_user_id_by_name_zip(u.name.first_name, u.name.last_name, u.address.zip) for u in (first, second)}
    assert found == {first.user_id, second.user_id}


def test_details_tools_return_json_or_refuse(tools: RetailTools, db: RetailDB) -> None:
    user = next(iter(db.users.values()))
    assert json.loads(tools.get_user_details(user.user_id))["email"] == user.email
    assert_refused(tools, "get_user_details", {"user_id": "no_such_user_1"}, "User not found")
    order = next(iter(db.orders.values()))
    detail = json.loads(tools.get_order_details(order.order_id))
    assert detail["order_id"] == order.order_id and detail["status"] == order.status
    assert_refused(tools, "get_order_details", {"order_id": order.order_id.lstrip("#")}, "start with '#'")
    product = next(iter(db.products.values()))
    assert set(json.loads(tools.get_product_details(product.product_id))["variants"]) == set(product.variants)
    item_id = next(iter(product.variants))
    assert json.loads(tools.get_item_details(item_id))["item_id"] == item_id
    assert_refused(tools, "get_product_details", {"product_id": item_id}, "Product not found")
    assert_refused(tools, "get_item_details", {"item_id": product.product_id}, "Item not found")


def test_list_all_product_types_is_sorted_by_name(tools: RetailTools, db: RetailDB) -> None:
    listing = json.loads(tools.list_all_product_types())
    assert list(listing) == sorted(p.name for p in db.products.values())
    assert set(listing.values()) == set(db.products)


@pytest.mark.parametrize(("expression", "result"), [("2 + 2", "4.0"), ("(10 - 2.5) * 3", "22.5"),
                                                    ("10 / 3", "3.33"), ("-4 + 1", "-3.0")])
def test_calculate(tools: RetailTools, expression: str, result: str) -> None:
    assert tools.call("calculate", {"expression": expression}) == result


@pytest.mark.parametrize(("expression", "match"), [("__import__('os')", "invalid characters"), ("1 / 0", "division"),
                                                   ("2 +", "not a valid"), ("", "empty"), ("9**9**9", "too large")])
def test_calculate_refuses(tools: RetailTools, expression: str, match: str) -> None:
    assert_refused(tools, "calculate", {"expression": expression}, match)


def test_transfer_to_human_agents(tools: RetailTools) -> None:
    assert tools.call("transfer_to_human_agents", {"summary": "wants a refund to a new card"}) == "Transfer successful"


# -- cancel ------------------------------------------------------------------------------------------


def test_cancel_pending_order_refunds_gift_card_at_once(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "pending")[0]
    card = ensure_gift_card(db.users[order.user_id], 10.0)
    order.payment_history[0].payment_method_id = card.id
    amount = order.payment_history[0].amount
    result = json.loads(tools.call("cancel_pending_order", {"order_id": order.order_id, "reason": "ordered by mistake"}))
    assert result["status"] == "cancelled" and result["cancel_reason"] == "ordered by mistake"
    assert result["payment_history"][-1] == {"transaction_type": "refund", "amount": amount, "payment_method_id": card.id}
    assert card.balance == round(10.0 + amount, 2)


def test_cancel_refuses_non_pending_and_other_reasons(tools: RetailTools, db: RetailDB) -> None:
    for status in ("processed", "delivered", "cancelled", "pending (item modified)"):
        order = orders_with(db, status)[0]
        assert_refused(tools, "cancel_pending_order", {"order_id": order.order_id, "reason": "no longer needed"},
                       "Non-pending order cannot be cancelled")
    pending = orders_with(db, "pending")[0]
    assert_refused(tools, "cancel_pending_order", {"order_id": pending.order_id, "reason": "found it cheaper"},
                   "Invalid reason")


# -- modify pending order ---------------------------------------------------------------------------

ADDRESS = {"address1": "1 Test Road", "address2": "", "city": "Austin", "state": "TX", "country": "USA", "zip": "78701"}


def test_modify_address_of_pending_orders_only(tools: RetailTools, db: RetailDB) -> None:
    for status in ("pending", "pending (item modified)"):
        order = orders_with(db, status)[0]
        result = json.loads(tools.call("modify_pending_order_address", {"order_id": order.order_id, **ADDRESS}))
        assert result["address"] == {k: ADDRESS[k] for k in ("address1", "address2", "city", "country", "state", "zip")}
        assert result["status"] == status
    delivered = orders_with(db, "delivered")[0]
    assert_refused(tools, "modify_pending_order_address", {"order_id": delivered.order_id, **ADDRESS},
                   "Non-pending order cannot be modified")


def test_modify_payment_to_another_method(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "pending")[0]
    user, original = db.users[order.user_id], order.payment_history[0]
    if original.payment_method_id.startswith("paypal"):
        new_id = ensure_gift_card(user, original.amount + 1).id
    else:
        new_id = add_paypal(user)
    tools.call("modify_pending_order_payment", {"order_id": order.order_id, "payment_method_id": new_id})
    assert [(p.transaction_type, p.payment_method_id) for p in order.payment_history[1:]] == [
        ("payment", new_id), ("refund", original.payment_method_id)]
    assert order.status == "pending"
    assert_refused(tools, "modify_pending_order_payment", {"order_id": order.order_id, "payment_method_id": new_id},
                   "exactly one payment")


def test_modify_payment_refusals(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "pending")[0]
    user, original = db.users[order.user_id], order.payment_history[0]
    args = {"order_id": order.order_id}
    assert_refused(tools, "modify_pending_order_payment", {**args, "payment_method_id": original.payment_method_id},
                   "different from the current one")
    other_user = next(u for u in db.users.values() if u.user_id != user.user_id)
    foreign = next(iter(other_user.payment_methods))
    assert_refused(tools, "modify_pending_order_payment", {**args, "payment_method_id": foreign},
                   "Payment method not found")
    if original.payment_method_id.startswith("gift_card"):
        original.payment_method_id = add_paypal(user)
    card = ensure_gift_card(user, original.amount - 0.01)
    assert_refused(tools, "modify_pending_order_payment", {**args, "payment_method_id": card.id},
                   "Insufficient gift card balance")
    card.balance = original.amount
    tools.call("modify_pending_order_payment", {**args, "payment_method_id": card.id})
    assert card.balance == 0.0
    delivered = orders_with(db, "delivered")[0]
    assert_refused(tools, "modify_pending_order_payment",
                   {"order_id": delivered.order_id, "payment_method_id": delivered.payment_history[0].payment_method_id},
                   "Non-pending order cannot be modified")


def test_modify_items_once_to_available_variant_of_same_product(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "pending")[0]
    line = order.items[0]
    new = alternatives(db, line)[0]
    pm_id = order.payment_history[0].payment_method_id
    if pm_id.startswith("gift_card"):
        ensure_gift_card(db.users[order.user_id], 10_000.0)
    old_price = line.price
    args = {"order_id": order.order_id, "item_ids": [line.item_id], "new_item_ids": [new.item_id],
            "payment_method_id": pm_id}
    result = json.loads(tools.call("modify_pending_order_items", args))
    assert result["status"] == "pending (item modified)"
    assert result["items"][0]["item_id"] == new.item_id and result["items"][0]["price"] == new.price
    diff = round(new.price - old_price, 2)
    assert result["payment_history"][-1] == {"transaction_type": "payment" if diff > 0 else "refund",
                                             "amount": abs(diff), "payment_method_id": pm_id}
    assert_refused(tools, "modify_pending_order_items", {**args, "item_ids": [new.item_id],
                                                         "new_item_ids": [line.item_id]}, "already modified once")


def test_modify_items_refusals(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "pending")[0]
    line = order.items[0]
    pm_id = order.payment_history[0].payment_method_id
    base = {"order_id": order.order_id, "item_ids": [line.item_id], "payment_method_id": pm_id}
    call = "modify_pending_order_items"
    assert_refused(tools, call, {**base, "new_item_ids": [foreign_item(db, line).item_id]}, "not a variant of")
    out_of_stock = alternatives(db, line, available=False)
    if out_of_stock:
        assert_refused(tools, call, {**base, "new_item_ids": [out_of_stock[0].item_id]}, "not available")
    assert_refused(tools, call, {**base, "new_item_ids": [line.item_id]}, "should be different")
    assert_refused(tools, call, {**base, "new_item_ids": []}, "should match")
    assert_refused(tools, call, {**base, "item_ids": [], "new_item_ids": []}, "empty")
    new_id = alternatives(db, line)[0].item_id
    assert_refused(tools, call, {**base, "item_ids": [line.item_id] * (len(order.items) + 1),
                                 "new_item_ids": [new_id] * (len(order.items) + 1)}, "holds")
    assert_refused(tools, call, {**base, "item_ids": ["0000000000"], "new_item_ids": [new_id]}, "not found in order")
    assert_refused(tools, "modify_pending_order_items", {**base, "new_item_ids": [new_id], "payment_method_id":
                                                         "credit_card_0000000"}, "Payment method not found")


def test_modify_items_gift_card_must_cover_difference(tools: RetailTools, db: RetailDB) -> None:
    order, line, new = next((o, line, v) for o in orders_with(db, "pending") for line in o.items
                            for v in alternatives(db, line) if v.price - line.price > 1)
    diff = round(new.price - line.price, 2)
    card = ensure_gift_card(db.users[order.user_id], diff - 0.01)
    args = {"order_id": order.order_id, "item_ids": [line.item_id], "new_item_ids": [new.item_id],
            "payment_method_id": card.id}
    assert_refused(tools, "modify_pending_order_items", args, "Insufficient gift card balance")
    card.balance = diff
    tools.call("modify_pending_order_items", args)
    assert card.balance == 0.0


def test_modify_items_with_duplicate_lines_changes_distinct_lines(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "pending")[0]
    line = order.items[0]
    order.items.append(line.model_copy(deep=True))
    first, second = alternatives(db, line)[:2]
    ensure_gift_card(db.users[order.user_id], 10_000.0)
    card_id = next(pm for pm, m in db.users[order.user_id].payment_methods.items() if isinstance(m, GiftCard))
    old_id = line.item_id
    held = [i.item_id for i in order.items].count(old_id)
    tools.modify_pending_order_items(order.order_id, [old_id, old_id], [first.item_id, second.item_id], card_id)
    after = [i.item_id for i in order.items]
    assert after.count(old_id) == held - 2
    assert first.item_id in after and second.item_id in after


# -- returns and exchanges ---------------------------------------------------------------------------


def test_return_to_original_method_or_gift_card(tools: RetailTools, db: RetailDB) -> None:
    order, other = orders_with(db, "delivered")[:2]
    original = order.payment_history[0].payment_method_id
    result = json.loads(tools.call("return_delivered_order_items", {
        "order_id": order.order_id, "item_ids": [order.items[0].item_id], "payment_method_id": original}))
    assert result["status"] == "return requested" and result["return_items"] == [order.items[0].item_id]
    assert result["return_payment_method_id"] == original
    card = ensure_gift_card(db.users[other.user_id], 0.0)
    tools.return_delivered_order_items(other.order_id, [i.item_id for i in other.items], card.id)
    assert other.status == "return requested" and card.balance == 0.0  # the refund comes later


def test_return_refusals(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "delivered")[0]
    user, original = db.users[order.user_id], order.payment_history[0].payment_method_id
    if original.startswith("paypal"):  # make PayPal a method that is neither original nor a gift card
        order.payment_history[0].payment_method_id = original = ensure_gift_card(user, 5.0).id
    other_method = add_paypal(user)
    args = {"order_id": order.order_id, "item_ids": [order.items[0].item_id]}
    assert_refused(tools, "return_delivered_order_items", {**args, "payment_method_id": other_method},
                   "original payment method")
    assert_refused(tools, "return_delivered_order_items", {**args, "item_ids": [], "payment_method_id": original},
                   "empty")
    assert_refused(tools, "return_delivered_order_items", {**args, "item_ids": ["0000000000"],
                                                           "payment_method_id": original}, "not found in order")
    for status in ("pending", "processed", "return requested", "exchange requested"):
        o = orders_with(db, status)[0]
        assert_refused(tools, "return_delivered_order_items", {
            "order_id": o.order_id, "item_ids": [o.items[0].item_id],
            "payment_method_id": o.payment_history[0].payment_method_id}, "Non-delivered order cannot be returned")


def test_exchange_delivered_items(tools: RetailTools, db: RetailDB) -> None:
    order = orders_with(db, "delivered")[0]
    line = order.items[0]
    new = alternatives(db, line)[0]
    pm_id = non_gift_methods(db.users[order.user_id])[0] if non_gift_methods(db.users[order.user_id]) \
        else add_paypal(db.users[order.user_id])
    args = {"order_id": order.order_id, "item_ids": [line.item_id], "new_item_ids": [new.item_id],
            "payment_method_id": pm_id}
    result = json.loads(tools.call("exchange_delivered_order_items", args))
    assert result["status"] == "exchange requested"
    assert result["exchange_new_items"] == [new.item_id] and result["exchange_payment_method_id"] == pm_id
    assert result["exchange_price_difference"] == round(new.price - line.price, 2)
    assert result["items"][0]["item_id"] == line.item_id  # items change only when the exchange is processed
    assert_refused(tools, "exchange_delivered_order_items", args, "Non-delivered order cannot be exchanged")


def test_exchange_refusals(tools: RetailTools, db: RetailDB) -> None:
    order, line, new = next((o, line, v) for o in orders_with(db, "delivered") for line in o.items
                            for v in alternatives(db, line) if v.price - line.price > 1)
    diff = round(new.price - line.price, 2)
    card = ensure_gift_card(db.users[order.user_id], diff - 0.01)
    base = {"order_id": order.order_id, "item_ids": [line.item_id], "payment_method_id": card.id}
    call = "exchange_delivered_order_items"
    assert_refused(tools, call, {**base, "new_item_ids": [new.item_id]}, "Insufficient gift card balance")
    assert_refused(tools, call, {**base, "new_item_ids": [foreign_item(db, line).item_id]}, "not a variant of")
    out_of_stock = alternatives(db, line, available=False)
    if out_of_stock:
        assert_refused(tools, call, {**base, "new_item_ids": [out_of_stock[0].item_id]}, "not available")
    assert_refused(tools, call, {**base, "new_item_ids": [line.item_id]}, "should be different")
    assert_refused(tools, call, {**base, "new_item_ids": [new.item_id, new.item_id]}, "should match")
    card.balance = diff
    tools.call(call, {**base, "new_item_ids": [new.item_id]})
    assert order.status == "exchange requested" and card.balance == diff  # charged when the exchange is processed
    pending = orders_with(db, "pending")[0]
    assert_refused(tools, call, {"order_id": pending.order_id, "item_ids": [pending.items[0].item_id],
                                 "new_item_ids": [alternatives(db, pending.items[0])[0].item_id],
                                 "payment_method_id": pending.payment_history[0].payment_method_id},
                   "Non-delivered order cannot be exchanged")


# -- user address and dispatch ----------------------------------------------------------------------


def test_modify_user_address(tools: RetailTools, db: RetailDB) -> None:
    user = next(iter(db.users.values()))
    result = json.loads(tools.call("modify_user_address", {"user_id": user.user_id, **ADDRESS}))
    assert result["address"]["address1"] == "1 Test Road" and user.address.zip == "78701"
    assert_refused(tools, "modify_user_address", {"user_id": "no_such_user_1", **ADDRESS}, "User not found")


@pytest.mark.parametrize(("name", "arguments", "match"), [
    ("delete_all_orders", {}, "Unknown tool"),
    ("get_order_details", {}, "missing required argument 'order_id'"),
    ("get_order_details", {"order_id": "#W1", "verbose": True}, "unexpected argument"),
    ("get_order_details", {"order_id": 1234567}, "argument 'order_id' must be string"),
    ("return_delivered_order_items", {"order_id": "#W1", "item_ids": "123", "payment_method_id": "x"},
     "argument 'item_ids' must be array"),
    ("calculate", ["1 + 1"], "must be a JSON object"),
])
def test_call_rejects_bad_calls(tools: RetailTools, name: str, arguments: dict, match: str) -> None:
    assert_refused(tools, name, arguments, match)


def test_tool_error_is_the_only_error_a_call_raises(tools: RetailTools) -> None:
    with pytest.raises(ToolError):
        tools.call("get_user_details", {"user_id": None})  # type: ignore[dict-item]
