"""The retail tools: τ²-bench's tool names, argument names, preconditions and state changes.

Each tool is a typed method with a docstring; :meth:`RetailTools.schemas` turns those into
OpenAI function-tool schemas, and :meth:`RetailTools.call` dispatches a call by name after
checking its arguments against the same signature. Tools return strings (details as JSON text,
as τ²-bench serialises them) and refuse a call whose precondition fails with
:class:`adat.errors.ToolError`, before changing anything.

Deliberate differences from τ²-bench (all stricter or fixing a τ²-bench slip, none changes the
outcome of a valid call): every write checks all preconditions before touching the database;
exchanges, like modifications, must change each item to a *different* item and need at least one
item; returns need at least one item; price differences are rounded to cents before they are
recorded; duplicate item ids in a call map to distinct order lines.
"""

from __future__ import annotations

from typing import Any

from adat.errors import ToolError
from adat_reference.retail.database import (
    CANCEL_REASONS,
    Address,
    GiftCard,
    Order,
    OrderItem,
    Payment,
    Variant,
)
from adat_reference.retail.lookup_tools import RetailLookupTools, dump
from adat_reference.retail.order_checks import cents, match_order_lines, price_difference
from adat_reference.retail.toolschema import bind_arguments, function_schema, shared_args, tool, tool_kinds

#: The address arguments of both address tools, described once (appended to each tool's Args).
ADDRESS_ARGS = {
    "address1": "First address line, such as '12 Oak Street'.",
    "address2": "Second address line, such as 'Apt 4', or '' when there is none.",
    "city": "City, such as 'Austin'.",
    "state": "State, such as 'TX'.",
    "country": "Country, such as 'USA'.",
    "zip": "Zip code, such as '78701'.",
}
#: The arguments both item-change tools (modify, exchange) check the same way (``_check_item_change``).
ITEM_CHANGE_ARGS = {
    "new_item_ids": "The new item ids, position by position: each must be a different, available item of the "
                    "same product as the item it replaces.",
    "payment_method_id": "The payment method id from the user's profile that pays or receives the price "
                         "difference; a gift card must cover the difference.",
}


class RetailTools(RetailLookupTools):
    """The tools an agent uses over one :class:`RetailDB`, which the write tools mutate in place."""

    @tool("write")
    def cancel_pending_order(self, order_id: str, reason: str) -> str:
        """Cancel a pending order and refund every payment to the method it came from. Gift-card
        refunds are credited immediately; other refunds take 5-7 business days. Explain the details
        and get an explicit 'yes' from the user first. Returns the order after cancellation.

        Args:
            order_id: The order id, such as '#W0000000'; note the '#' at the start.
            reason: Why the user cancels: 'no longer needed' or 'ordered by mistake'.
        """
        order = self._order(order_id)
        if order.status != "pending":
            raise ToolError(f"Non-pending order cannot be cancelled: {order_id} is '{order.status}'")
        if reason not in CANCEL_REASONS:
            raise ToolError(f"Invalid reason {reason!r}: use 'no longer needed' or 'ordered by mistake'")
        methods = [self._payment_method(order.user_id, p.payment_method_id) for p in order.payment_history]
        refunds = [Payment(transaction_type="refund", amount=p.amount, payment_method_id=p.payment_method_id)
                   for p in order.payment_history]
        for method, payment in zip(methods, order.payment_history, strict=True):
            if isinstance(method, GiftCard):
                method.balance = cents(method.balance + payment.amount)
        order.status = "cancelled"
        order.cancel_reason = reason
        order.payment_history.extend(refunds)
        return dump(order)

    @tool("write")
    @shared_args(ADDRESS_ARGS)
    def modify_pending_order_address(self, order_id: str, address1: str, address2: str, city: str,
                                     state: str, country: str, zip: str) -> str:
        """Change the shipping address of a pending order. Explain the details and get an explicit
        'yes' from the user first. Returns the order after the change.

        Args:
            order_id: The order id, such as '#W0000000'; note the '#' at the start.
        """
        order = self._order(order_id)
        if "pending" not in order.status:
            raise ToolError(f"Non-pending order cannot be modified: {order_id} is '{order.status}'")
        order.address = Address(address1=address1, address2=address2, city=city, state=state,
                                country=country, zip=zip)
        return dump(order)

    @tool("write")
    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> str:
        """Pay for a pending order with a different payment method from the user's profile. The new
        method is charged the order total and the old one refunded (a gift card at once, others in
        5-7 business days). Explain the details and get an explicit 'yes' from the user first.

        Args:
            order_id: The order id, such as '#W0000000'; note the '#' at the start.
            payment_method_id: The new payment method id from the user's profile, such as 'credit_card_0000000', 'paypal_0000000' or 'gift_card_0000000'.
        """
        order = self._order(order_id)
        if "pending" not in order.status:
            raise ToolError(f"Non-pending order cannot be modified: {order_id} is '{order.status}'")
        new_method = self._payment_method(order.user_id, payment_method_id)
        if len(order.payment_history) != 1 or order.payment_history[0].transaction_type != "payment":
            raise ToolError(f"There should be exactly one payment for a pending order: {order_id} has "
                            f"{len(order.payment_history)} transactions, so its payment cannot be changed")
        original = order.payment_history[0]
        if original.payment_method_id == payment_method_id:
            raise ToolError(f"The new payment method should be different from the current one ({payment_method_id})")
        amount = original.amount
        if isinstance(new_method, GiftCard) and new_method.balance < amount:
            raise ToolError(f"Insufficient gift card balance to pay for the order: {payment_method_id} has "
                            f"{new_method.balance:.2f}, the order total is {amount:.2f}")
        old_method = self._payment_method(order.user_id, original.payment_method_id)
        order.payment_history.extend([
            Payment(transaction_type="payment", amount=amount, payment_method_id=payment_method_id),
            Payment(transaction_type="refund", amount=amount, payment_method_id=original.payment_method_id),
        ])
        if isinstance(new_method, GiftCard):
            new_method.balance = cents(new_method.balance - amount)
        if isinstance(old_method, GiftCard):
            old_method.balance = cents(old_method.balance + amount)
        return dump(order)

    @tool("write")
    @shared_args(ITEM_CHANGE_ARGS)
    def modify_pending_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                   payment_method_id: str) -> str:
        """Change items of a pending order to other available items of the same product (e.g. another
        size). Possible only once per order: the status becomes 'pending (item modified)', after which
        the order cannot be modified or cancelled, so collect every item to change first. The price
        difference is charged to or refunded to the given payment method. Explain the details and get
        an explicit 'yes' from the user first.

        Args:
            order_id: The order id, such as '#W0000000'; note the '#' at the start.
            item_ids: The item ids to change, such as ['1008292230']; repeat an id to change several units.
        """
        order = self._order(order_id)
        if order.status != "pending":
            raise ToolError(f"Non-pending order cannot be modified: {order_id} is '{order.status}'"
                            + (" (its items were already modified once)" if "pending" in order.status else ""))
        lines, variants = self._check_item_change(order, item_ids, new_item_ids)
        method = self._payment_method(order.user_id, payment_method_id)
        diff = price_difference(lines, variants)
        if isinstance(method, GiftCard) and method.balance < diff:
            raise ToolError(f"Insufficient gift card balance to pay for the new item: {payment_method_id} has "
                            f"{method.balance:.2f}, the price difference is {diff:.2f}")
        order.payment_history.append(Payment(transaction_type="payment" if diff > 0 else "refund",
                                             amount=abs(diff), payment_method_id=payment_method_id))
        if isinstance(method, GiftCard):
            method.balance = cents(method.balance - diff)
        for line, variant in zip(lines, variants, strict=True):
            line.item_id, line.price, line.options = variant.item_id, variant.price, dict(variant.options)
        order.status = "pending (item modified)"
        return dump(order)

    @tool("write")
    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> str:
        """Request the return of items of a delivered order; the status becomes 'return requested' and
        the user gets an email on how to send the items back. Explain the details and get an explicit
        'yes' from the user first.

        Args:
            order_id: The order id, such as '#W0000000'; note the '#' at the start.
            item_ids: The item ids to return, such as ['1008292230']; repeat an id to return several units.
            payment_method_id: Where the refund goes: the order's original payment method or a gift card in the user's profile.
        """
        order = self._order(order_id)
        if order.status != "delivered":
            raise ToolError(f"Non-delivered order cannot be returned: {order_id} is '{order.status}'")
        method = self._payment_method(order.user_id, payment_method_id)
        original_id = order.payment_history[0].payment_method_id if order.payment_history else None
        if not isinstance(method, GiftCard) and payment_method_id != original_id:
            raise ToolError(f"Payment method should be the original payment method ({original_id}) or a gift card; "
                            f"got {payment_method_id}")
        if not item_ids:
            raise ToolError("No items to return: item_ids is empty")
        match_order_lines(order, item_ids)
        order.status = "return requested"
        order.return_items = sorted(item_ids)
        order.return_payment_method_id = payment_method_id
        return dump(order)

    @tool("write")
    @shared_args(ITEM_CHANGE_ARGS)
    def exchange_delivered_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                       payment_method_id: str) -> str:
        """Exchange items of a delivered order for other available items of the same product. Possible
        only once per order: the status becomes 'exchange requested', so collect every item to exchange
        first. The price difference is charged to or refunded to the given payment method. Explain the
        details and get an explicit 'yes' from the user first.

        Args:
            order_id: The order id, such as '#W0000000'; note the '#' at the start.
            item_ids: The item ids to exchange, such as ['1008292230']; repeat an id to exchange several units.
        """
        order = self._order(order_id)
        if order.status != "delivered":
            raise ToolError(f"Non-delivered order cannot be exchanged: {order_id} is '{order.status}'")
        lines, variants = self._check_item_change(order, item_ids, new_item_ids)
        diff = price_difference(lines, variants)
        method = self._payment_method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < diff:
            raise ToolError(f"Insufficient gift card balance to pay for the price difference: {payment_method_id} "
                            f"has {method.balance:.2f}, the price difference is {diff:.2f}")
        order.status = "exchange requested"
        order.exchange_items = sorted(item_ids)
        order.exchange_new_items = sorted(new_item_ids)
        order.exchange_payment_method_id = payment_method_id
        order.exchange_price_difference = diff
        return dump(order)

    @tool("write")
    @shared_args(ADDRESS_ARGS)
    def modify_user_address(self, user_id: str, address1: str, address2: str, city: str, state: str,
                            country: str, zip: str) -> str:
        """Change a user's default address (existing orders keep theirs). Explain the details and get
        an explicit 'yes' from the user first. Returns the user after the change.

        Args:
            user_id: The user id, such as 'jane_doe_1234'.
        """
        user = self._user(user_id)
        user.address = Address(address1=address1, address2=address2, city=city, state=state,
                               country=country, zip=zip)
        return dump(user)

    # -- item checks and dispatch ------------------------------------------------------------

    def _check_item_change(self, order: Order, item_ids: list[str],
                           new_item_ids: list[str]) -> tuple[list[OrderItem], list[Variant]]:
        """The order lines to change and their new variants, or ToolError (shared by modify/exchange)."""
        lines = match_order_lines(order, item_ids)
        if len(item_ids) != len(new_item_ids):
            raise ToolError(f"The number of items to be exchanged should match: {len(item_ids)} item_ids, "
                            f"{len(new_item_ids)} new_item_ids")
        if not item_ids:
            raise ToolError("No items to change: item_ids is empty")
        variants: list[Variant] = []
        for line, new_id in zip(lines, new_item_ids, strict=True):
            if new_id == line.item_id:
                raise ToolError(f"The new item id should be different from the old item id ({new_id})")
            product = self._product(line.product_id)
            variant = product.variants.get(new_id)
            if variant is None:
                raise ToolError(f"New item {new_id} is not a variant of {product.name} (product {product.product_id}); "
                                f"items can only change to another option of the same product")
            if not variant.available:
                raise ToolError(f"New item {new_id} not available: it is out of stock")
            variants.append(variant)
        return lines, variants

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Run the tool ``name`` with JSON ``arguments``; unknown tools or bad arguments raise ToolError."""
        if name not in TOOL_NAMES:
            raise ToolError(f"Unknown tool {name!r}; available tools: {', '.join(TOOL_NAMES)}")
        fn = getattr(type(self), name)
        result: str = getattr(self, name)(**bind_arguments(fn, name, arguments))
        return result

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas of every tool, from signatures and docstrings."""
        return [function_schema(getattr(type(self), name), name) for name in TOOL_NAMES]


TOOL_NAMES: tuple[str, ...] = tuple(tool_kinds(RetailTools))
WRITE_TOOLS: frozenset[str] = frozenset(name for name, kind in tool_kinds(RetailTools).items() if kind == "write")
