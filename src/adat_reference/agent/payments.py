"""Resolve what the user said about a payment method to a method of their profile."""

from __future__ import annotations

from dataclasses import dataclass, field

from adat_reference.agent.entities import PaymentRef
from adat_reference.retail.database import Order, PaymentMethod, User


@dataclass
class PaymentChoice:
    """The outcome of resolving a reference: one method id, several candidates, or none in the profile."""

    method_id: str | None = None
    candidates: list[PaymentMethod] = field(default_factory=list)
    requested: str = ""  # how the user referred to it, for 'not in your profile'

    @property
    def missing(self) -> bool:
        return self.method_id is None and not self.candidates


def describe_ref(ref: PaymentRef) -> str:
    if ref.kind == "id":
        return ref.value
    if ref.kind == "credit_card":
        brand = f"{ref.value} " if ref.value else ""
        ending = f" ending in {ref.last_four}" if ref.last_four else ""
        return f"a {brand}credit card{ending}"
    return {"paypal": "a PayPal account", "gift_card": "a gift card", "original": "the original payment method"}[ref.kind]


def original_method_id(order: Order) -> str | None:
    payments = [p for p in order.payment_history if p.transaction_type == "payment"]
    return payments[0].payment_method_id if payments else None


def resolve(ref: PaymentRef, user: User, order: Order | None) -> PaymentChoice:
    """The profile method ``ref`` names; ``candidates`` when it fits several (ask which)."""
    methods = list(user.payment_methods.values())
    if ref.kind == "id":
        found = user.payment_methods.get(ref.value)
        return PaymentChoice(method_id=found.id if found else None, requested=ref.value)
    if ref.kind == "original":
        original = original_method_id(order) if order is not None else None
        return PaymentChoice(method_id=original if original in user.payment_methods else None,
                             requested="the original payment method")
    fits = [m for m in methods if m.source == ref.kind]
    if ref.kind == "credit_card":
        if ref.value:
            fits = [m for m in fits if getattr(m, "brand", "").lower() == ref.value]
        if ref.last_four:
            fits = [m for m in fits if getattr(m, "last_four", "") == ref.last_four]
    if len(fits) == 1:
        return PaymentChoice(method_id=fits[0].id, requested=describe_ref(ref))
    return PaymentChoice(candidates=fits, requested=describe_ref(ref))


def distinct_methods(refs: list[PaymentRef], user: User, order: Order | None) -> set[str]:
    """How many different profile methods the references name (for 'a single payment method')."""
    ids: set[str] = set()
    for ref in refs:
        choice = resolve(ref, user, order)
        ids.add(choice.method_id or f"?{describe_ref(ref)}")
    return ids
