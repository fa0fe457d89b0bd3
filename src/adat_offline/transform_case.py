"""What a transformation works on: the statement's test taken apart, and the discovery traces.

A :class:`Case` holds the base test (the plain test, or a replay of the supporting conversation),
which step hint authenticates, makes the request, gives the reason or confirms, the request's
kind and ids, the tester facts, and the discovery traces. Transformations change the hints and,
when the change moves the request to another side or boundary, take the expected behaviour from
an agent reply in the traces via :meth:`Case.reply_to`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from adat.contracts.adat2_roles import GeneratedTest, TraceView, TransformInput
from adat_offline import language as lang
from adat_offline.facts import Account, OrderFact, TesterFacts, normalise_order_id, parse_facts
from adat_offline.generation import (
    ACTS,
    ASKS_CONFIRMATION,
    GOES_AHEAD,
    OPPOSITE,
    REFUSES,
    SAYS,
    assumed_facts,
    criteria_for,
    plain_test,
    side_of,
)
from adat_offline.language import reply_kind
from adat_offline.statements import request_key

Outcome = GeneratedTest | str  # a test, or the reason the pair is not applicable

CONFIRM_HINT = re.compile(r"^\W*(yes|yeah|yep|sure|ok(ay)?|no|nope|please go ahead|go ahead|confirm)\b", re.I)
REASON_HINT = re.compile(r"\breason\b|\bbecause\b", re.I)
PAYMENT_WORDS = re.compile(r"\b(payment|refund|gift card|credit card|paypal|pay|balance)\b", re.I)
STREET = re.compile(r"\b\d{1,5}\s+[A-Z][a-z]+\s+[A-Z][a-z]+\b")  # a street line: a number and two names
AUTH_WORDS = re.compile(r"\b(authenticat\w*|identity|verify|email|zip)\b", re.I)


def is_auth_text(text: str, facts: TesterFacts) -> bool:
    if lang.EMAIL.search(text) or lang.USER_ID.search(text) or re.search(r"\bzip\b", text, re.I):
        return True
    return any(a.first_name and f"{a.first_name} {a.last_name}" in text for a in facts.accounts)


@dataclass
class Case:
    inp: TransformInput
    facts: TesterFacts
    base: GeneratedTest
    hints: list[str]
    kind: str | None  # request kind: cancel, return, exchange, modify_items, ...
    request_i: int | None
    auth_i: int | None
    confirm_i: int | None
    reason_i: int | None
    orders: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    payments: list[str] = field(default_factory=list)
    support_trace: TraceView | None = None

    # --- what the statement is about ---------------------------------------------------
    @property
    def about(self) -> str:
        st = self.inp.statement
        return f"{st.text} {st.condition} {st.behavior} {self.inp.supporting_reply}"

    @property
    def side(self) -> str | None:
        return self.base.expected_side

    @property
    def account(self) -> Account | None:
        for order in self.orders:
            acc = self.facts.account_of_order(order)
            if acc is not None:
                return acc
        text = " ".join(self.hints)
        return next((a for a in self.facts.accounts if (a.email and a.email in text) or
                     (a.zip and a.zip in text and a.first_name in text)), None)

    def order_fact(self, order_id: str) -> OrderFact | None:
        return self.facts.order(normalise_order_id(order_id))

    def status_of(self, order_id: str) -> str:
        order = self.order_fact(order_id)
        return order.status if order else ""

    def owns(self, order_id: str, trace: TraceView) -> bool:
        """Whether the user who identifies themselves in ``trace`` owns ``order_id`` (by the facts)."""
        account = self.facts.account_of_order(normalise_order_id(order_id))
        said = " ".join(t.text for t in trace.turns if t.role == "user")
        return account is not None and bool((account.email and account.email in said)
                                            or (account.zip and account.zip in said))

    # --- situations a user message can put the agent in (for searching the traces) -------
    def unknown_order(self, text: str, trace: TraceView) -> bool:
        """The message names an order id the tester facts do not know (a made-up one)."""
        return any(self.order_fact(o) is None for o in lang.ORDER_ID.findall(text))

    def foreign_order(self, text: str, trace: TraceView) -> bool:
        """The message names a known order of a user other than the one identified in the trace."""
        return any(self.order_fact(o) is not None and not self.owns(o, trace)
                   for o in lang.ORDER_ID.findall(text)) and self.identified(trace)

    def identified(self, trace: TraceView) -> bool:
        said = " ".join(t.text for t in trace.turns if t.role == "user")
        return any((a.email and a.email in said) or (a.zip and a.zip in said) for a in self.facts.accounts)

    def same_item_twice(self, text: str, trace: TraceView) -> bool:
        """The message names one item id twice (as the item and as the new item)."""
        ids = lang.ITEM_ID.findall(text)
        return len(ids) != len(set(ids))

    def item_not_in_order(self, text: str, trace: TraceView) -> bool:
        """The message names an order and an item the facts place in another order."""
        said = " ".join(t.text for t in trace.turns if t.role == "user")
        orders = [self.order_fact(o) for o in lang.ORDER_ID.findall(said)]
        known = [o for o in orders if o is not None and o.items]
        others = {i for _, o in self.facts.all_orders() for i in o.items}
        return bool(known) and any(i in others and all(i not in o.items for o in known)
                                   for i in lang.ITEM_ID.findall(text))

    def payment_not_on_file(self, text: str, trace: TraceView) -> bool:
        """The message names a payment method id that no test account has."""
        on_file = {p for a in self.facts.accounts for p in a.payment_methods}
        return any(p not in on_file for p in lang.PAYMENT_ID.findall(text))

    def address_without_zip(self, text: str, trace: TraceView) -> bool:
        """The message gives a street address but no zip code."""
        return bool(STREET.search(text)) and not lang.ZIP.search(STREET.split(text, 1)[-1])

    def switched_user(self, text: str, trace: TraceView) -> bool:
        """The message gives an email other than one the user gave earlier in the trace."""
        earlier: list[str] = []
        for turn in trace.turns:
            if turn.role != "user":
                continue
            if turn.text == text:
                break
            earlier += lang.EMAIL.findall(turn.text)
        return bool(earlier) and any(e not in earlier for e in lang.EMAIL.findall(text))

    def two_payments(self, text: str, trace: TraceView) -> bool:
        """The message names two payment methods for one change."""
        return len(set(lang.PAYMENT_ID.findall(text))) >= 2

    def unknown_email(self, text: str, trace: TraceView) -> bool:
        """The message identifies the user by an email no test account has."""
        emails = {a.email for a in self.facts.accounts}
        return any(e not in emails for e in lang.EMAIL.findall(text))

    def unknown_zip(self, text: str, trace: TraceView) -> bool:
        """The message identifies the user by a name and a zip code that do not belong together."""
        for account in self.facts.accounts:
            name = f"{account.first_name} {account.last_name}"
            if account.first_name and name in text:
                return any(z != account.zip for z in re.findall(r"zip code(?: is)? (\d{5})", text, re.I))
        return False

    # --- building the transformed test ------------------------------------------------
    def keep(self, hints: list[str], change: str) -> GeneratedTest:
        """The base test's expectations with new hints: the change keeps the request's side."""
        return self._test(hints, self.base.success_criteria, self.base.failure_criteria, self.base.expected_side,
                          f"{self._goal_core()} ({change}; the expected behaviour is unchanged)")

    def expect(self, hints: list[str], reply: str, change: str, kinds: tuple[str, ...] = ()) -> GeneratedTest:
        """A test whose expectation comes from ``reply``, an agent reply in the discovery traces."""
        sentence = decisive_sentence(reply, kinds)
        behaviour = lang.generalise(lang.strip_courtesy(sentence)).rstrip(".")
        side = side_of(behaviour, reply)
        success, failure = criteria_for(behaviour, side, reply)
        if reply_kind(reply) == "ask" and lang.goes_ahead(reply):
            # The agent goes ahead with a question for a detail; the question is worded for the
            # traced request's entity (its item, its payment method), the decision is not.
            success, failure, side = [GOES_AHEAD], [REFUSES], "allowed"
        elif reply_kind(reply) in ("confirm", "completion"):
            # A confirmation question or a report of the change done is checked by its typed
            # criterion; its wording (amounts, dates, the summary of the change) is no behaviour
            # and differs from one request to the next.
            success = [c for c in success if not c.startswith(SAYS)] or success
            failure = [c for c in failure if not c.startswith(OPPOSITE)]
        if "confirm" in kinds and ASKS_CONFIRMATION not in success:
            success, failure = [*success, ASKS_CONFIRMATION], [*failure, ACTS]
        if "refusal" in kinds and REFUSES not in success and side == "denied":
            success = [*success, REFUSES]
        return self._test(hints, success, list(dict.fromkeys(failure)), side,
                          f"Check that the agent: {behaviour} ({change})")

    def _test(self, hints: list[str], success: list[str], failure: list[str], side: str | None,
              goal: str) -> GeneratedTest:
        clean = [h for h in (" ".join(h.split()) for h in hints) if h][: self.inp.turn_limit]
        return GeneratedTest(goal=goal, step_hints=clean, success_criteria=list(success),
                             failure_criteria=list(failure), expected_side=side,  # type: ignore[arg-type]
                             assumed_facts=assumed_facts(clean, self.inp.tester_facts))

    def _goal_core(self) -> str:
        return self.base.goal.rstrip(".")

    # --- the discovery traces -----------------------------------------------------------
    def reply_to(self, user_pred: Callable[[str, TraceView], bool], kinds: tuple[str, ...], *,
                 kind: str | None = "same") -> tuple[str, str] | None:
        """(reply, trace id) of the first agent reply of one of ``kinds`` (refusal, completion,
        confirm, auth, ask, other, any) that follows a user message matching ``user_pred(text,
        trace)``, in a
        trace making the same kind of request (``kind``: "same", another request kind, or None
        for any trace); None when the traces show no such reply."""
        want = self.kind if kind == "same" else kind
        for trace in self.inp.discovery_traces:
            if want and want not in {request_key(t.text) for t in trace.turns if t.role == "user"}:
                continue
            for i, turn in enumerate(trace.turns):
                if turn.role != "user" or not user_pred(turn.text, trace):
                    continue
                # The agent's immediate answer to that message is what a test sending it gets; a
                # later reply answers later messages the test may not send.
                later = next((t for t in trace.turns[i + 1:] if t.role == "agent"), None)
                if later is not None and ("any" in kinds or reply_kind(later.text) in kinds):
                    return later.text, trace.trace_id
        return None

    def find_reply(self, pattern: str, kinds: tuple[str, ...] = ("any",)) -> tuple[str, str] | None:
        """(reply, trace id) of the first agent reply in the traces matching ``pattern``."""
        rx = re.compile(pattern, re.I)
        for trace in self.inp.discovery_traces:
            for turn in trace.turns:
                if turn.role == "agent" and rx.search(turn.text) and ("any" in kinds
                                                                      or reply_kind(turn.text) in kinds):
                    return turn.text, trace.trace_id
        return None


def decisive_sentence(reply: str, kinds: tuple[str, ...] = ()) -> str:
    """The sentence of a reply that carries its decision (refusal, action, condition)."""
    parts = lang.sentences(reply) or [reply]
    # "Thank you, Ann; I have verified your identity" answers the identification, not the request
    parts = [p for p in parts if not lang.VERIFIED.search(p)] or parts
    tests: list[Callable[[str], bool]] = [lang.is_refusal, lang.is_completion,
                                          lambda s: bool(lang.condition_keyword(s)),
                                          lambda s: bool(lang.ASKS_CONFIRM.search(s))]
    if "confirm" in kinds:
        tests.insert(0, lambda s: bool(lang.ASKS_CONFIRM.search(s)))
    if "auth" in kinds:
        tests.insert(0, lang.asks_auth)
    for test in tests:
        hit = next((s for s in parts if test(s) and len(s.split()) >= 4), None)
        if hit:
            return hit
    return parts[0]


def build_case(inp: TransformInput) -> Case | str:
    """The case for a transformation, or why there is nothing to transform."""
    facts = parse_facts(inp.tester_facts)
    support = next((t for t in inp.discovery_traces for turn in t.turns
                    if turn.role == "agent" and turn.text == inp.supporting_reply), None)
    if inp.plain_test is not None:
        pt = inp.plain_test
        base = GeneratedTest(goal=pt.goal, step_hints=list(pt.step_hints) or ["Hi"],
                             success_criteria=list(pt.success_criteria) or [f"The agent {inp.statement.behavior}"],
                             failure_criteria=list(pt.failure_criteria),
                             expected_side=side_of(inp.statement.behavior, inp.supporting_reply))
    elif support is not None:
        index = next(i for i, t in enumerate(support.turns) if t.role == "agent" and t.text == inp.supporting_reply)
        base = plain_test(inp.statement, support.turns[: index + 1], inp.tester_facts)
    else:
        return "neither a plain test nor the supporting conversation is available to transform"
    hints = list(base.step_hints)
    if not user_messages_ok(hints):
        return "the test has no user request to transform"
    kind = request_key(inp.statement.condition) or next((k for h in hints if (k := request_key(h))), None)
    # The hint making the statement's request: a conversation may make others first (e.g. ask for a
    # human agent, then for a discount); a change to the request goes to the one the statement is about.
    request_i = next((i for i, h in enumerate(hints) if kind and request_key(h) == kind),
                     next((i for i, h in enumerate(hints) if request_key(h)), None))
    auth_i = next((i for i, h in enumerate(hints) if is_auth_text(h, facts)), None)
    confirm_i = next((i for i, h in enumerate(hints) if CONFIRM_HINT.search(h) and i > 0), None)
    reason_i = next((i for i, h in enumerate(hints) if REASON_HINT.search(h)), None)
    text = " ".join(hints)
    return Case(inp=inp, facts=facts, base=base, hints=hints, kind=kind, request_i=request_i, auth_i=auth_i,
                confirm_i=confirm_i, reason_i=reason_i,
                orders=list(dict.fromkeys(normalise_order_id(o) for o in lang.ORDER_ID.findall(text))),
                items=list(dict.fromkeys(lang.ITEM_ID.findall(text))),
                payments=list(dict.fromkeys(lang.PAYMENT_ID.findall(text))), support_trace=support)


def user_messages_ok(hints: list[str]) -> bool:
    return any(h.strip() for h in hints)


def address_in(text: str) -> str:
    """The address a user message gives: from its street line to the end of the sentence."""
    match = STREET.search(text)
    return re.split(r"(?<=[A-Za-z])\.(?:\s|$)", text[match.start():])[0].rstrip(".") if match else ""
