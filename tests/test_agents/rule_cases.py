"""For every rule of rules.yaml, a scripted conversation per side on the generated database.

CASES[rule_id][side] builds the user messages from a :class:`Finder`; after the conversation the
side log must contain (rule_id, side). test_rule_sides.py fails for a rule without both cases.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.test_agents.scenarios import Finder, gift_card, login, single_payment, total

Script = Callable[[Finder], list[str]]


def _cancel(status: str, reason: str, answer: str | None = None) -> Script:
    def script(f: Finder) -> list[str]:
        user, order = f.user_order(status)
        return [login(user), f"Please cancel order {order.order_id}, {reason}."] + ([answer] if answer else [])
    return script


def _status(f: Finder, own: bool = True, exists: bool = True) -> list[str]:
    user, order = f.user_order("delivered")
    order_id = order.order_id if own else f.other_users_order(user).order_id
    return [login(user), f"What is the status of order {order_id if exists else f.missing_order_id()}?"]


def _address_change(status: str) -> Script:
    def script(f: Finder) -> list[str]:
        user, order = f.user_order(status)
        return [login(user), f"Please change the shipping address of order {order.order_id} to "
                             "12 Oak Street, Apt 3, Springfield, IL 62704, USA."]
    return script


def _item_change(status: str, verb: str, kind: str) -> Script:
    """kind: same (available other variant) | foreign | unavailable | identical."""
    def script(f: Finder) -> list[str]:
        def fits(_u: object, o: object) -> bool:
            return f.line_with_variant(o, kind != "unavailable") is not None  # type: ignore[arg-type]
        user, order = f.user_order(status, fits)
        found = f.line_with_variant(order, kind != "unavailable")
        assert found is not None
        line, variant = found
        new = {"same": variant.item_id, "unavailable": variant.item_id, "identical": line.item_id,
               "foreign": f.foreign_variant(line).item_id}[kind]
        return [login(user), f"I want to {verb} item {line.item_id} in order {order.order_id} for item {new}."]
    return script


def _return(status: str, refund: str = "to the original payment method") -> Script:
    def script(f: Finder) -> list[str]:
        user, order = f.user_order(status)
        return [login(user), f"I want to return item {order.items[0].item_id} from order {order.order_id}, "
                             f"refund {refund}."]
    return script


def _return_foreign_item(f: Finder) -> list[str]:
    user, order = f.user_order("delivered")
    return [login(user), f"I want to return item {f.foreign_item_id(order)} from order {order.order_id}."]


def _refund_elsewhere(f: Finder) -> list[str]:
    def fits(u, o) -> bool:  # type: ignore[no-untyped-def]
        original = o.payment_history[0].payment_method_id
        return any(m.id != original and m.source != "gift_card" for m in u.payment_methods.values())
    user, order = f.user_order("delivered", fits)
    original = order.payment_history[0].payment_method_id
    other = next(m.id for m in user.payment_methods.values() if m.id != original and m.source != "gift_card")
    return [login(user), f"I want to return item {order.items[0].item_id} from order {order.order_id}, "
                         f"refund to {other}."]


def _refund_missing_method(f: Finder) -> list[str]:
    user, order = f.user_order("delivered", lambda u, o: not any(m.source == "paypal" for m in u.payment_methods.values()))
    return [login(user), f"I want to return item {order.items[0].item_id} from order {order.order_id}, "
                         "refund it to my PayPal account."]


def _payment_change(which: str) -> Script:
    """which: other | same | split | poor_gift | rich_gift."""
    def script(f: Finder) -> list[str]:
        def fits(u, o) -> bool:  # type: ignore[no-untyped-def]
            card = gift_card(u)
            others = [m for m in u.payment_methods.values() if m.id != o.payment_history[0].payment_method_id]
            return single_payment(o) and {
                "other": any(m.source != "gift_card" for m in others), "same": True, "split": len(others) >= 1,
                "poor_gift": card is not None and card[0] != o.payment_history[0].payment_method_id
                and card[1] < total(o),
                "rich_gift": card is not None and card[0] != o.payment_history[0].payment_method_id
                and card[1] >= total(o),
            }[which]
        user, order = f.user_order("pending", fits)
        current = order.payment_history[0].payment_method_id
        others = [m for m in user.payment_methods.values() if m.id != current]
        target = {"other": next((m.id for m in others if m.source != "gift_card"), ""), "same": current,
                  "split": f"{current} and {others[0].id if others else ''}"}.get(which, "my gift card")
        ask = "split the payment between" if which == "split" else "pay with"
        return [login(user), f"For order {order.order_id} I want to change the payment method: {ask} {target}."]
    return script


CASES: dict[str, dict[str, Script]] = {
    "auth_required": {
        "denied": lambda f: [f"Please cancel order {f.user_order('pending')[1].order_id}."],
        "allowed": _status,
    },
    "auth_user_id_not_enough": {
        "denied": lambda f: [f"My user id is {f.user_order('pending')[0].user_id}."],
        "allowed": lambda f: [f"My user id is {(u := f.user_order('pending')[0]).user_id} and my email is {u.email}."],
    },
    "auth_lookup": {
        "denied": lambda f: ["My email is nobody.at.all@example.com."],
        "allowed": lambda f: [login(f.user_order("pending")[0])],
    },
    "one_user": {
        "denied": lambda f: [login(u := f.user_order("pending")[0]), f"Now my email is {f.other_user(u).email}."],
        "allowed": lambda f: [login(u := f.user_order("pending")[0]), f"My user id is {u.user_id}."],
    },
    "order_exists": {"denied": lambda f: _status(f, exists=False), "allowed": _status},
    "order_owner": {"denied": lambda f: _status(f, own=False), "allowed": _status},
    "confirm_before_write": {
        "allowed": _cancel("pending", "I ordered it by mistake", "yes"),
        "denied": _cancel("pending", "I ordered it by mistake", "no, actually keep it"),
    },
    "cancel_requires_pending": {
        "allowed": _cancel("pending", "I no longer need it"),
        "denied": _cancel("processed", "I no longer need it"),
    },
    "cancel_reason_accepted": {
        "allowed": _cancel("pending", "I ordered it by mistake"),
        "denied": _cancel("pending", "because I found a better price elsewhere"),
    },
    "modify_requires_pending": {"allowed": _address_change("pending"), "denied": _address_change("processed")},
    "modify_scope": {
        "allowed": _address_change("pending"),
        "denied": lambda f: [login(u := f.user_order("pending")[0]),
                             f"Can you add a phone case to my order {f.orders_of(u, 'pending')[0].order_id}?"],
    },
    "items_modified_once": {
        "allowed": _item_change("pending", "modify", "same"),
        "denied": _item_change("pending (item modified)", "modify", "same"),
    },
    "return_requires_delivered": {"allowed": _return("delivered"), "denied": _return("processed")},
    "exchange_requires_delivered": {
        "allowed": _item_change("delivered", "exchange", "same"),
        "denied": _item_change("processed", "exchange", "same"),
    },
    "one_return_or_exchange": {"allowed": _return("delivered"), "denied": _return("return requested")},
    "items_in_order": {"allowed": _return("delivered"), "denied": _return_foreign_item},
    "exchange_same_product": {
        "allowed": _item_change("delivered", "exchange", "same"),
        "denied": _item_change("delivered", "exchange", "foreign"),
    },
    "modify_same_product": {
        "allowed": _item_change("pending", "modify", "same"),
        "denied": _item_change("pending", "modify", "foreign"),
    },
    "new_item_available": {
        "allowed": _item_change("delivered", "exchange", "same"),
        "denied": _item_change("delivered", "exchange", "unavailable"),
    },
    "new_item_different": {
        "allowed": _item_change("delivered", "exchange", "same"),
        "denied": _item_change("delivered", "exchange", "identical"),
    },
    "payment_in_profile": {"allowed": _return("delivered"), "denied": _refund_missing_method},
    "payment_change_different": {"allowed": _payment_change("other"), "denied": _payment_change("same")},
    "payment_change_single": {"allowed": _payment_change("other"), "denied": _payment_change("split")},
    "gift_card_balance": {"allowed": _payment_change("rich_gift"), "denied": _payment_change("poor_gift")},
    "return_refund_destination": {"allowed": _return("delivered"), "denied": _refund_elsewhere},
    "address_complete": {
        "allowed": lambda f: [login(f.user_order("pending")[0]),
                              "Please update my default address to 12 Oak Street, Springfield, IL 62704."],
        "denied": lambda f: [login(f.user_order("pending")[0]), "Please update my default address to 12 Oak Street."],
    },
    "request_in_scope": {
        "allowed": _cancel("pending", "I no longer need it"),
        "denied": lambda f: [login(f.user_order("pending")[0]), "I want to buy a new laptop."],
    },
    "transfer_scope": {
        "allowed": lambda f: [login(f.user_order("pending")[0]), "I want to buy a new laptop.",
                              "Then let me talk to a human agent."],
        "denied": lambda f: [login(u := f.user_order("pending")[0]),
                             f"Get me a human, I want to cancel order {f.orders_of(u, 'pending')[0].order_id}."],
    },
}
