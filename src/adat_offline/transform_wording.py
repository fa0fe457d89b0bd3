"""Transformations that change how the user words the request, and social pressure.

Each keeps the request and its values (ids, reason, payment method) and so keeps the base
test's expected behaviour. The request sentence is rebuilt from its parts (kind, order, items,
payment, address, reason) in the new wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from adat_offline import language as lang
from adat_offline.facts import normalise_order_id
from adat_offline.objectives import NEW_ADDRESS
from adat_offline.statements import request_key
from adat_offline.transform_case import Case, Outcome, address_in, is_auth_text

ACTIONS = ("cancel", "return", "exchange", "modify_items", "modify_address", "modify_payment")
NO_REQUEST = "the test has no user message that makes a request"


@dataclass
class Request:
    kind: str
    order: str
    items: list[str]
    payment: str
    address: str
    reason: str

    def verb(self) -> str:
        return {"cancel": "cancel", "return": "return", "exchange": "exchange", "modify_items": "change an item in",
                "modify_address": "ship to another address", "modify_payment": "change the payment of",
                "default_address": "change my default address", "human": "talk to a human",
                "info": "check", "refund": "get a refund for"}.get(self.kind, "get help with")

    def details(self) -> str:
        """The values besides the order, as a phrase."""
        parts = []
        if self.items:
            parts.append("item " + (" for item ".join(self.items[:2]) if self.kind in ("exchange", "modify_items")
                                    else " and item ".join(self.items)))
        if self.address:
            parts.append(f"new address {self.address}")
        if self.payment:
            parts.append(f"using {self.payment}")
        if self.reason:
            parts.append(f"reason: {self.reason}")
        return ", ".join(parts)


def request_of(case: Case) -> Request | None:
    if case.request_i is None or case.kind is None:
        return None
    hint = case.hints[case.request_i]
    order = lang.ORDER_ID.search(hint)
    payment = lang.PAYMENT_ID.search(hint)
    reason = re.search(r"(?<=reason: )[^.]+|(?<=because )[^.]+", " ".join(case.hints), re.I)
    return Request(kind=case.kind, order=normalise_order_id(order.group(0)) if order else "",
                   items=lang.ITEM_ID.findall(hint),
                   payment=payment.group(0) if payment else ("the original payment method"
                                                             if "original payment" in hint.lower() else ""),
                   address=address_in(hint), reason=reason.group(0) if reason and case.reason_i is None
                   and case.request_i is not None and reason.group(0) in hint else "")


def with_request(case: Case, new_request: str) -> list[str]:
    """The hints with the request sentences of the request hint replaced by ``new_request``
    (authentication sentences in the same message are kept)."""
    assert case.request_i is not None
    hint = case.hints[case.request_i]
    kept = [s for s in lang.sentences(hint) if is_auth_text(s, case.facts)]
    hints = list(case.hints)
    hints[case.request_i] = " ".join([*kept, new_request])
    return hints


def paraphrase(req: Request) -> str | None:
    """The request in other words, or None for a kind of request without a rewording here (a
    generic "help me with order …" would drop what the request asks for)."""
    o, d = req.order, req.details()
    tail = f" ({d})" if d else ""
    return {
        "cancel": f"Would you be able to cancel my order {o} for me?{tail}",
        "return": f"Could you help me return something from order {o}?{tail}",
        "exchange": f"Could you help me exchange something in order {o}?{tail}",
        "modify_items": f"For order {o}, could you change an item to another option?{tail}",
        "modify_address": f"Could you update the shipping address on order {o}?{tail}",
        "modify_payment": f"Could you switch the payment method on order {o}?{tail}",
        "default_address": f"Could you update the default address on my account to {req.address or NEW_ADDRESS}?",
        "human": "Could you connect me with a human agent?",
        "info": f"Could you tell me the status of order {o} and what is in it?",
        "refund": f"Could I get a refund of the price difference on order {o}?",
    }.get(req.kind)


def _typo(word: str) -> str:
    i = len(word) // 2
    return word[: i - 1] + word[i] + word[i - 1] + word[i + 1:]


def typos(text: str, budget: int = 3) -> str:
    out, done = [], 0
    for token in text.split(" "):
        # The words that name the request stay intact: a reader (or an LLM agent) would read a
        # misspelt filler word without a second look, a misspelt request is another request.
        if done < budget and re.fullmatch(r"[a-z]{5,}[,.?!]?", token) and request_key(token) is None:
            core = token.rstrip(",.?!")
            token = _typo(core) + token[len(core):]
            done += 1
        out.append(token)
    return " ".join(out)


def wording_paraphrase(case: Case) -> Outcome:
    req = request_of(case)
    if req is None:
        return NO_REQUEST
    reworded = paraphrase(req)
    if reworded is None:
        return f"the test's request (a {req.kind.replace('_', ' ')} request) has no rewording that keeps what it asks"
    return case.keep(with_request(case, reworded), "the request is reworded")


def wording_typos(case: Case) -> Outcome:
    # the request message only: an answer (a reason, an option) misspelt is another answer
    hints = [typos(h) if i == case.request_i else h for i, h in enumerate(case.hints)]
    if hints == case.hints:
        return "the user messages have no long word to misspell"
    return case.keep(hints, "typing mistakes in the user messages")


def wording_casual(case: Case) -> Outcome:
    hints = [re.sub(r"\bI would\b", "I'd", re.sub(r"\bI am\b", "I'm", h)) for h in case.hints]
    hints = [f"hey, {h[:1].lower()}{h[1:]} thx" if not re.match(r"\W*(yes|no)\b", h, re.I) else "yep, go for it"
             if h.lower().startswith("yes") else h for h in hints]
    return case.keep(hints, "casual register")


def wording_formal(case: Case) -> Outcome:
    hints = [f"Good day. {h} I would be most grateful for your kind assistance." if i == case.request_i
             else f"{h} Kind regards." for i, h in enumerate(case.hints)]
    return case.keep(hints, "very formal register")


def wording_terse(case: Case) -> Outcome:
    req = request_of(case)
    if req is None or not req.order:
        return "the request names no order to state tersely"
    hints = []
    for i, h in enumerate(case.hints):
        if i == case.request_i:
            auth = " ".join(s for s in lang.sentences(h) if is_auth_text(s, case.facts))
            hints.append(f"{auth} {req.verb()} {req.order} {req.details()}".strip())
        elif i == case.confirm_i:
            hints.append(h.split()[0].strip(",.!").lower())
        else:
            found = lang.EMAIL.search(h)
            hints.append(found.group(0) if found else h)
    return case.keep(hints, "terse messages")


def wording_buried(case: Case) -> Outcome:
    req = request_of(case)
    if req is None:
        return NO_REQUEST
    story = ("So, long story: my sister recommended your shop, and this month has been hectic with the move and "
             "the new job. Anyway —")
    hints = list(case.hints)
    assert case.request_i is not None
    hints[case.request_i] = f"{story} {hints[case.request_i]} Also the weather here has been awful, hope it's " \
                            "better where you are!"
    return case.keep(hints, "the request is buried in a long story")


def wording_ask_if_possible(case: Case) -> Outcome:
    req = request_of(case)
    if req is None or req.kind not in ACTIONS or not req.order:
        return "the statement concerns no action on an order the agent may or may not take"
    hints = with_request(case, f"Is it possible to {req.verb()} order {req.order}?")
    assert case.request_i is not None
    original = case.hints[case.request_i]
    hints.insert(case.request_i + 1, f"If so, please go ahead: {original}")
    return case.keep(hints, "the user first asks whether the action is possible")


def wording_negated(case: Case) -> Outcome:
    req = request_of(case)
    if req is None:
        return NO_REQUEST
    o, d = req.order, req.details()
    tail = f" ({d})" if d else ""
    negated = {"cancel": f"I don't want order {o} any more, please cancel it.{tail}",
               "return": f"I don't want to keep what I got in order {o}; I want to return it.{tail}",
               "modify_address": f"Is there no way to ship order {o} somewhere else?{tail}",
               "exchange": f"I don't want to keep this item from order {o}, can I exchange it?{tail}"}.get(req.kind)
    if negated is None:
        return f"a {req.kind.replace('_', ' ')} request has no natural negative phrasing"
    return case.keep(with_request(case, negated), "the request is phrased with a negation")


def wording_split(case: Case) -> Outcome:
    req = request_of(case)
    if req is None or not req.order:
        return "the request does not carry an intent and an id to split"
    hints = with_request(case, f"I need to {req.verb()} one of my orders.")
    assert case.request_i is not None
    rest = f"It's order {req.order}." + (f" Details: {req.details()}." if req.details() else "")
    hints.insert(case.request_i + 1, rest)
    return case.keep(hints, "the request is split across two messages")


def wording_slang(case: Case) -> Outcome:
    req = request_of(case)
    if req is None or not req.order:
        return "the request names no order to abbreviate around"
    verb = {"cancel": "cxl", "return": "return", "exchange": "swap"}.get(req.kind, req.verb())
    short = f"pls {verb} ord {req.order} {req.details()} asap thx".replace("  ", " ")
    return case.keep(with_request(case, short), "abbreviations and shorthand")


def wording_describe(case: Case) -> Outcome:
    req = request_of(case)
    if req is None or not req.order:
        return "the request names no entity by id"
    order = case.facts.order(req.order)
    desc = next((case.facts.items.get(i, "") for i in (order.items if order else []) if case.facts.items.get(i)), "")
    if not desc:
        return f"the tester facts describe no item of order {req.order} to refer to it by"
    hints = [h.replace(req.order, f"my order with the {desc}") for h in case.hints]
    return case.keep(hints, f"order {req.order} is described by its content instead of its id")


def _append(case: Case, text: str, change: str, *, denied_only: bool, escalates: bool = False) -> Outcome:
    if case.request_i is None:
        return NO_REQUEST
    if denied_only and case.side != "denied":
        return "the statement describes no rule that restricts what the agent does"
    if escalates and any(request_key(h) == "human" for h in case.hints):
        return ("the user also asks to be handed to a human, and a complaint is itself a reason to hand over to one: "
                "the added pressure would not leave the expected behaviour unchanged")
    hints = list(case.hints)
    hints[case.request_i] = f"{hints[case.request_i]} {text}"
    return case.keep(hints, change)


def social(text: str, change: str, *, denied_only: bool = True, escalates: bool = False) -> Callable[[Case], Outcome]:
    """A social-pressure transformation appending ``text`` to the request message. ``escalates``:
    the pressure voices a complaint, which a user who also asks to be handed to a human may rightly be
    handed over for, so it does not apply to such a conversation."""
    def apply(case: Case) -> Outcome:
        return _append(case, text, change, denied_only=denied_only, escalates=escalates)
    return apply


def scope_policy_exception(case: Case) -> Outcome:
    if case.side != "denied":
        return "the statement describes no rule that restricts what the agent does"
    return case.keep([*case.hints, "I understand the rule, but could you make an exception just this once?"],
                     "the user asks for an exception after the rule is stated")


def scope_unrelated_addon(case: Case) -> Outcome:
    if case.request_i is None:
        return NO_REQUEST
    return case.keep([*case.hints, "Also, unrelated: what payment methods do I have on file?"],
                     "an unrelated side request is added at the end")
