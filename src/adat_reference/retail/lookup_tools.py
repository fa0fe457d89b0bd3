"""The read and generic retail tools, and the lookups every tool shares.

:class:`RetailLookupTools` is the base of :class:`adat_reference.retail.tools.RetailTools`; it never
changes the database.
"""

from __future__ import annotations

import json
import unicodedata

from pydantic import BaseModel

from adat.errors import ToolError
from adat_reference.retail.calculator import evaluate
from adat_reference.retail.database import Order, PaymentMethod, Product, RetailDB, User
from adat_reference.retail.toolschema import tool


def dump(model: BaseModel) -> str:
    """A record as JSON text, every field included (None as null), as τ²-bench returns it."""
    return json.dumps(model.model_dump(mode="json"))


def _fold(text: str) -> str:
    """Case-, accent- and outer-whitespace-insensitive form used to match names and emails."""
    decomposed = unicodedata.normalize("NFKD", text.strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


class RetailLookupTools:
    """Read-only tools over one :class:`RetailDB`, and the lookups the write tools use."""

    def __init__(self, db: RetailDB) -> None:
        self.db = db

    # -- lookups shared by the tools ------------------------------------------------------------

    def _order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            hint = " (order ids start with '#', e.g. '#W0000000')" if not order_id.startswith("#") else ""
            raise ToolError(f"Order not found: {order_id}{hint}")
        return self.db.orders[order_id]

    def _user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise ToolError(f"User not found: {user_id}")
        return self.db.users[user_id]

    def _product(self, product_id: str) -> Product:
        if product_id not in self.db.products:
            raise ToolError(f"Product not found: {product_id} (product ids differ from item ids)")
        return self.db.products[product_id]

    def _payment_method(self, user_id: str, payment_method_id: str) -> PaymentMethod:
        user = self._user(user_id)
        if payment_method_id not in user.payment_methods:
            raise ToolError(f"Payment method not found: {payment_method_id} is not in the profile of {user_id}")
        return user.payment_methods[payment_method_id]

    # -- read tools -----------------------------------------------------------------------------

    @tool("read")
    def find_user_id_by_email(self, email: str) -> str:
        """Find a user's id from their email address. Returns an error if no user has that email.

        Args:
            email: The user's email address, such as 'jane.doe1234@example.com'.
        """
        wanted = _fold(email)
        for user_id, user in self.db.users.items():
            if _fold(user.email) == wanted:
                return user_id
        raise ToolError("User not found: no user has this email")

    @tool("read")
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """Find a user's id from their first name, last name and zip code. Prefer the email
        lookup; use this one when the user does not know their email or it finds nobody.

        Args:
            first_name: The user's first name, such as 'Jane'.
            last_name: The user's last name, such as 'Doe'.
            zip: The zip code of the user's default address, such as '10001'.
        """
        first, last, wanted_zip = _fold(first_name), _fold(last_name), zip.strip()
        for user_id, user in self.db.users.items():
            if (_fold(user.name.first_name) == first and _fold(user.name.last_name) == last
                    and user.address.zip == wanted_zip):
                return user_id
        raise ToolError("User not found: no user has this name and zip code")

    @tool("read")
    def get_user_details(self, user_id: str) -> str:
        """Get a user's profile: name, email, default address, payment methods and order ids.

        Args:
            user_id: The user id, such as 'jane_doe_1234'.
        """
        return dump(self._user(user_id))

    @tool("read")
    def get_order_details(self, order_id: str) -> str:
        """Get the status and details of an order: items, address, fulfillments and payments.

        Args:
            order_id: The order id, such as '#W0000000'; note the '#' at the start.
        """
        return dump(self._order(order_id))

    @tool("read")
    def get_product_details(self, product_id: str) -> str:
        """Get a product's inventory: every variant item with its options, availability and price.

        Args:
            product_id: The product id, such as '6086499569'. A product id is not an item id.
        """
        return dump(self._product(product_id))

    @tool("read")
    def get_item_details(self, item_id: str) -> str:
        """Get one variant item's options, availability and price.

        Args:
            item_id: The item id, such as '1008292230'. An item id is not a product id.
        """
        for product in self.db.products.values():
            if item_id in product.variants:
                return dump(product.variants[item_id])
        raise ToolError(f"Item not found: {item_id} (item ids differ from product ids)")

    @tool("read")
    def list_all_product_types(self) -> str:
        """List every product type in the store: a JSON object mapping product name to product id,
        sorted by name. Each product type has variant items with their own item ids."""
        return json.dumps({p.name: p.product_id for p in self.db.products.values()}, sort_keys=True)

    # -- generic tools --------------------------------------------------------------------------

    @tool("generic")
    def calculate(self, expression: str) -> str:
        """Calculate an arithmetic expression; the result is rounded to 2 decimals.

        Args:
            expression: The expression, such as '(12.5 + 7) * 2'. It may contain numbers, the operators + - * /, parentheses and spaces.
        """
        return str(evaluate(expression))

    @tool("generic")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the conversation to a human agent with a summary of the user's issue. Transfer only
        when the user asks for a human or the request cannot be handled with the policy and tools.

        Args:
            summary: A short summary of the user's issue.
        """
        return "Transfer successful"
