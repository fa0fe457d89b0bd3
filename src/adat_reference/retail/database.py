"""The retail database in the τ²-bench format: ``products`` (with variants), ``users``, ``orders``.

The models mirror τ²-bench's retail data model field for field, so the real τ²-bench ``db.json``
and adat's own generated database load through the same code. Unknown keys are rejected
(``extra="forbid"``) so a misspelt field in a user's database is reported rather than dropped.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adat import config
from adat.errors import UserError

OrderStatus = Literal[
    "pending",
    "processed",
    "delivered",
    "cancelled",
    "pending (item modified)",
    "return requested",
    "exchange requested",
]
ORDER_STATUSES: tuple[str, ...] = OrderStatus.__args__  # type: ignore[attr-defined]
CANCEL_REASONS: tuple[str, ...] = ("no longer needed", "ordered by mistake")


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Variant(_Record):
    """One purchasable item of a product: its options, availability and price."""

    item_id: str = Field(description="unique 10-digit item id")
    options: dict[str, str] = Field(description="option name -> value, e.g. {'color': 'blue'}")
    available: bool = Field(description="whether the item is in stock")
    price: float = Field(description="price in USD")


class Product(_Record):
    """A product type and its variant items."""

    name: str
    product_id: str = Field(description="unique 10-digit product id (unrelated to item ids)")
    variants: dict[str, Variant] = Field(description="item id -> variant")


class UserName(_Record):
    first_name: str
    last_name: str


class Address(_Record):
    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class CreditCard(_Record):
    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class Paypal(_Record):
    source: Literal["paypal"]
    id: str


class GiftCard(_Record):
    source: Literal["gift_card"]
    id: str
    balance: float


PaymentMethod = Annotated[CreditCard | Paypal | GiftCard, Field(discriminator="source")]


class User(_Record):
    """A customer: identity, default address, payment methods and order ids."""

    user_id: str
    name: UserName
    address: Address
    email: str
    payment_methods: dict[str, PaymentMethod] = Field(description="payment method id -> method")
    orders: list[str] = Field(description="order ids of this user")


class Fulfillment(_Record):
    tracking_id: list[str]
    item_ids: list[str]


class OrderItem(_Record):
    """An item as ordered: the variant's id, options and price at the time of purchase."""

    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class Payment(_Record):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(_Record):
    """An order; the optional fields are set by the write tools (cancel, exchange, return)."""

    order_id: str = Field(description="'#W' followed by 7 digits")
    user_id: str
    address: Address
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[Fulfillment]
    payment_history: list[Payment]
    cancel_reason: str | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(_Record):
    """The whole retail database; tools mutate it in place, ``copy_fresh`` gives a new session."""

    products: dict[str, Product]
    users: dict[str, User]
    orders: dict[str, Order]

    @classmethod
    def load(cls, path: Path | str) -> RetailDB:
        """Read a τ²-bench-format ``db.json``; any problem is a one-line :class:`UserError`."""
        p = Path(path)
        if not p.is_file():
            raise UserError("file not found", file=str(p), fix="pass the path of a τ²-bench-format retail db.json")
        try:
            return cls.model_validate_json(p.read_bytes())
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(part) for part in err["loc"])
            if err["type"] == "json_invalid":
                raise UserError(f"not valid JSON ({err['msg']})", file=str(p),
                                fix="correct the JSON syntax") from None
            more = len(exc.errors()) - 1
            msg = err["msg"] + (f" (+{more} more)" if more else "")
            raise UserError(msg, file=str(p), field=loc or None,
                            fix="the file must follow the τ²-bench retail format (products, users, orders)") from None

    def copy_fresh(self) -> RetailDB:
        """A deep copy sharing nothing with this database (a new session starts from it)."""
        # A dump/validate round trip runs in pydantic-core and is several times faster than deepcopy.
        return type(self).model_validate_json(self.model_dump_json())

    def to_json_dict(self) -> dict:
        """The database as plain JSON data in the file format (unset optional fields left out)."""
        return self.model_dump(mode="json", exclude_none=True)

    def canonical_json(self) -> str:
        """Canonical JSON text: sorted keys, no whitespace; equal databases give equal text."""
        return json.dumps(self.to_json_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def canonical_hash(self) -> str:
        """sha256 hex digest of :meth:`canonical_json`; tests compare end states with it."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def save(self, path: Path | str) -> None:
        """Write the database as JSON with one record per line, so a changed record is a one-line diff."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = self.to_json_dict()
        sections = []
        for table in ("products", "users", "orders"):
            rows = [f"    {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in data[table].items()]
            sections.append(f'  "{table}": {{\n' + ",\n".join(rows) + "\n  }")
        tmp = p.with_suffix(p.suffix + ".tmp")
        tmp.write_text("{\n" + ",\n".join(sections) + "\n}\n", encoding="utf-8")
        tmp.replace(p)


def default_db_path() -> Path:
    """adat's shipped, generated retail database."""
    return config.retail_db_path()


def default_policy_path() -> Path:
    """adat's own retail policy document (the reference agent enforces exactly these rules)."""
    return config.retail_policy_path()
