"""Instruction implementations: real changes of the statement's test, or not applicable with a reason."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from adat.contracts.adat2_roles import (
    GeneratedTest,
    InstructionView,
    StatementView,
    TestView,
    TraceView,
    TransformInput,
    TransformOutput,
    TurnView,
    reason_kind,
)
from adat.instruction_catalog import load_instructions
from adat.records import Instruction
from adat_offline.facts import parse_facts
from adat_offline.transform_values import without_item
from adat_offline.transformations import IMPLEMENTED, reason_kind_of, transform
from tests.test_offline.conftest import Extracted, find

Check = Callable[[TestView, GeneratedTest], bool]

# statements the transformations start from (words that pick them out of the frozen traces)
DELIVERED_CANCEL = ("cancel an order that is delivered", "can't be cancelled")
REASON_REFUSED = ("can't cancel the order for that reason",)
CANCEL_DONE = ("cancel an order and confirms", "now cancelled")
EXCHANGE_CONFIRM = ("exchanged only once",)
RETURN_NOT_IN_ORDER = ("an item is not in the order", "#W3338856")
AUTH_ASK = ("before the agent can help with cancelling", "verify the user's identity")


def _joined(test: TestView | GeneratedTest) -> str:
    return " | ".join(test.step_hints)


def _ids(text: str) -> set[str]:
    return set(re.findall(r"#W\d{7}|\b\d{10}\b|[\w.]+@[\w.]+", text))


def _same_ids(base: TestView, new: GeneratedTest) -> bool:
    return _ids(_joined(base)) == _ids(_joined(new))


def _new_order(base: TestView, new: GeneratedTest) -> set[str]:
    return set(re.findall(r"#W\d{7}", _joined(new))) - set(re.findall(r"#W\d{7}", _joined(base)))


FACTS: list[str] = []  # filled by the fixture below (tester facts of the demo config)


def _status(order_id: str) -> str:
    order = parse_facts(FACTS).order(order_id)
    return order.status if order else ""


def _owner(order_id: str) -> str:
    account = parse_facts(FACTS).account_of_order(order_id)
    return account.email if account else ""


CASES: list[tuple[str, tuple[str, ...], Check]] = [
    ("wording-paraphrase", DELIVERED_CANCEL,
     lambda b, n: n.step_hints != b.step_hints and _same_ids(b, n) and "Would you be able to" in _joined(n)),
    ("wording-typos", DELIVERED_CANCEL, lambda b, n: n.step_hints != b.step_hints and _same_ids(b, n)),
    ("wording-casual-register", REASON_REFUSED, lambda b, n: all(h.startswith("hey") for h in n.step_hints)),
    ("wording-formal-register", REASON_REFUSED, lambda b, n: "Kind regards" in _joined(n) and _same_ids(b, n)),
    ("wording-terse", DELIVERED_CANCEL, lambda b, n: len(_joined(n)) < len(_joined(b)) and _same_ids(b, n)),
    ("wording-buried-request", DELIVERED_CANCEL, lambda b, n: "long story" in _joined(n) and _same_ids(b, n)),
    ("wording-ask-if-possible", DELIVERED_CANCEL,
     lambda b, n: "Is it possible to cancel" in _joined(n) and "please go ahead" in n.step_hints[-1]),
    ("wording-negated", DELIVERED_CANCEL, lambda b, n: "don't want" in _joined(n) and _same_ids(b, n)),
    ("wording-split-across-messages", DELIVERED_CANCEL,
     lambda b, n: len(n.step_hints) == len(b.step_hints) + 1 and n.step_hints[-1].startswith("It's order")),
    ("wording-slang-abbreviations", DELIVERED_CANCEL, lambda b, n: "pls" in _joined(n) and _same_ids(b, n)),
    ("value-change-one", REASON_REFUSED,
     lambda b, n: "no longer needed" in _joined(n) and "better price" not in _joined(n)
     and n.success_criteria != b.success_criteria),
    ("value-nonexistent-id", DELIVERED_CANCEL,
     lambda b, n: bool(_new_order(b, n)) and all(_status(o) == "" for o in _new_order(b, n))),
    ("value-wrong-format-id", DELIVERED_CANCEL, lambda b, n: "W-" in _joined(n) and not _new_order(b, n)),
    ("value-other-users-id", DELIVERED_CANCEL,
     lambda b, n: bool(_new_order(b, n)) and all(_owner(o) not in _joined(n) for o in _new_order(b, n))),
    ("value-invalid-contact", DELIVERED_CANCEL, lambda b, n: " at example.com" in _joined(n) and "@" not in
     _joined(n)),
    ("value-missing-required", REASON_REFUSED,
     lambda b, n: len(n.step_hints) == len(b.step_hints) - 1 and "reason" not in _joined(n).lower()),
    ("state-status-change", DELIVERED_CANCEL,
     lambda b, n: all(_status(o) != "delivered" for o in _new_order(b, n)) and bool(_new_order(b, n))),
    ("state-earlier-status", DELIVERED_CANCEL,
     lambda b, n: all(_status(o) in ("pending", "processed") for o in _new_order(b, n)) and bool(_new_order(b, n))),
    ("sequence-request-before-auth", DELIVERED_CANCEL,
     lambda b, n: "@" not in n.step_hints[0] and "#W" in n.step_hints[0] and "@" in n.step_hints[1]),
    ("sequence-repeat-after-refusal", DELIVERED_CANCEL,
     lambda b, n: n.step_hints[:-1] == b.step_hints and "really need this" in n.step_hints[-1]),
    ("sequence-two-requests", DELIVERED_CANCEL, lambda b, n: len(_new_order(b, n)) == 1),
    ("sequence-topic-switch", REASON_REFUSED, lambda b, n: len(n.step_hints) == len(b.step_hints) + 1),
    ("sequence-premature-details", REASON_REFUSED,
     lambda b, n: len(n.step_hints) == 1 and _same_ids(b, n)),
    ("identity-no-auth", DELIVERED_CANCEL, lambda b, n: "@" not in _joined(n) and "rather not" in _joined(n)),
    ("identity-wrong-zip", DELIVERED_CANCEL, lambda b, n: "zip code" in _joined(n) and "@" not in _joined(n)),
    ("identity-unknown-email", DELIVERED_CANCEL, lambda b, n: "@example.net" in _joined(n)),
    ("identity-partial-details", DELIVERED_CANCEL,
     lambda b, n: "My name is" in _joined(n) and "@" not in _joined(n) and "zip" not in _joined(n)),
    ("identity-claim-already-verified", DELIVERED_CANCEL, lambda b, n: "already verified" in _joined(n)),
    ("identity-switch-user", DELIVERED_CANCEL,
     lambda b, n: n.step_hints[:-1] == b.step_hints and "another customer" in n.step_hints[-1]),
    ("confirmation-decline", CANCEL_DONE,
     lambda b, n: b.step_hints[-1].startswith("Yes") and n.step_hints[-1].startswith("No")
     and n.step_hints[:-1] == b.step_hints[:-1]),
    ("confirmation-ambiguous", CANCEL_DONE, lambda b, n: n.step_hints[-1].startswith("Hmm")),
    ("confirmation-preemptive", CANCEL_DONE,
     lambda b, n: len(n.step_hints) == len(b.step_hints) - 1 and "confirm in advance" in _joined(n)),
    ("confirmation-delayed", CANCEL_DONE, lambda b, n: n.step_hints[-1] == b.step_hints[-1]
     and len(n.step_hints) == len(b.step_hints) + 1),
    ("confirmation-withdraw", CANCEL_DONE, lambda b, n: "actually no" in n.step_hints[-1]),
    ("multiplicity-two-items", RETURN_NOT_IN_ORDER, lambda b, n: len(_ids(_joined(n))) == len(_ids(_joined(b))) + 1),
    ("channel-request-human", DELIVERED_CANCEL, lambda b, n: "human" in n.step_hints[-1]),
    ("scope-out-of-domain", DELIVERED_CANCEL, lambda b, n: "discount" in _joined(n)),
    ("scope-policy-exception", DELIVERED_CANCEL, lambda b, n: "exception" in n.step_hints[-1]),
    ("social-prompt-injection", DELIVERED_CANCEL, lambda b, n: "Ignore your previous instructions" in _joined(n)),
    ("social-urgency", CANCEL_DONE, lambda b, n: "hurry" in _joined(n)),
    ("wording-indirect-request", DELIVERED_CANCEL,
     lambda b, n: _same_ids(b, n) and "happier if" in _joined(n) and "cancel" not in _joined(n).split("@")[-1]),
    ("wording-other-language", DELIVERED_CANCEL, lambda b, n: _same_ids(b, n) and "pedido" in _joined(n)),
    ("sequence-change-mind", CANCEL_DONE,
     lambda b, n: len(n.step_hints) == len(b.step_hints) + 1 and n.step_hints[-1] == b.step_hints[-1]),
    ("channel-other-channel", DELIVERED_CANCEL, lambda b, n: "by email" in _joined(n)),
    ("scope-extra-compensation", DELIVERED_CANCEL, lambda b, n: "voucher" in _joined(n)),
    ("scope-internal-info", DELIVERED_CANCEL, lambda b, n: "internal notes" in _joined(n)),
    ("social-misquote-policy", DELIVERED_CANCEL, lambda b, n: "website says" in _joined(n)),
    ("timing-ask-eta", CANCEL_DONE, lambda b, n: n.step_hints[:-1] == b.step_hints and "When" in n.step_hints[-1]),
    ("identity-third-party", DELIVERED_CANCEL,
     lambda b, n: "sister" in n.step_hints[-1] and len(_new_order(b, n)) == 1),
]


@pytest.fixture(scope="module")
def catalog() -> dict[str, Instruction]:
    return {i.instruction_id: i for i in load_instructions()}


def _run(instruction: Instruction, item: Extracted, traces: list[TraceView], facts: list[str]) -> TransformOutput:
    view = InstructionView(instruction_id=instruction.instruction_id, title=instruction.title, text=instruction.text,
                           factor=instruction.factor, applicability=instruction.applicability)
    return transform(TransformInput(statement=item.view, supporting_reply=item.reply, instruction=view,
                                    plain_test=item.plain, discovery_traces=traces, recent_tests=[],
                                    tester_facts=facts, turn_limit=10))


def test_implemented_ids_are_catalog_ids(catalog: dict[str, Instruction]) -> None:
    assert set(IMPLEMENTED) <= set(catalog)
    assert len(IMPLEMENTED) >= 80


@pytest.mark.parametrize(("instruction_id", "words", "check"), CASES, ids=[c[0] for c in CASES])
def test_transformation_changes_the_test_as_the_instruction_says(
        instruction_id: str, words: tuple[str, ...], check: Check, catalog: dict[str, Instruction],
        extracted: list[Extracted], traces: list[TraceView], tester_facts: list[str]) -> None:
    FACTS[:] = tester_facts
    hint = next((w for w in words if w.startswith("#W")), "")
    item = find(extracted, *(w for w in words if w != hint), hint=hint)
    out = _run(catalog[instruction_id], item, traces, tester_facts)
    assert out.applicable, out.reason
    assert out.test is not None and out.reason.startswith(instruction_id)
    assert check(item.plain, out.test), (out.test.step_hints, item.plain.step_hints)


def test_at_least_25_instructions_transform_for_real() -> None:
    assert len({c[0] for c in CASES}) >= 25


def test_crossing_the_boundary_takes_the_expectation_from_a_discovery_reply(
        catalog: dict[str, Instruction], extracted: list[Extracted], traces: list[TraceView],
        tester_facts: list[str]) -> None:
    item = find(extracted, *DELIVERED_CANCEL)
    out = _run(catalog["state-status-change"], item, traces, tester_facts)
    assert out.test is not None and "expected behaviour from trace" in out.test.goal
    replies = {t.text for tr in traces for t in tr.turns if t.role == "agent"}
    trace_id = re.search(r"trace (\S+?)\)", out.test.goal)
    assert trace_id and any(tr.trace_id == trace_id.group(1) for tr in traces)
    assert out.test.success_criteria != item.plain.success_criteria and replies


def test_an_item_left_out_takes_its_replacement_with_it() -> None:
    """A replacement for no item reads as a request about another item (the auditor put it on the
    far side of 'the item is in the order'), not as one with an input left out."""
    hint = "For order #W9741594, I'd like to modify item 1234567890; the new item is 9181277449."
    assert without_item(hint, "1234567890") == "For order #W9741594, I'd like to modify."
    assert without_item("Please return item 1234567890 of order #W1.", "1234567890") == "Please return of order #W1."


def test_another_status_keeps_the_returned_item_in_the_order_it_names(
        catalog: dict[str, Instruction], extracted: list[Extracted], traces: list[TraceView],
        tester_facts: list[str]) -> None:
    item = find(extracted, "return an item of an order that is pending")
    out = _run(catalog["state-status-change"], item, traces, tester_facts)
    assert out.test is not None, out.reason
    (order,) = re.findall(r"#W\d{7}", _joined(out.test))
    facts = parse_facts(tester_facts).order(order)
    named = set(re.findall(r"\b\d{10}\b", _joined(out.test)))
    assert facts is not None and named and named <= set(facts.items), (out.test.step_hints, facts)


@pytest.mark.parametrize("instruction_id", ["confirmation-decline", "confirmation-withdraw"])
def test_a_no_to_the_confirmation_puts_the_request_on_the_denied_side(
        instruction_id: str, catalog: dict[str, Instruction], extracted: list[Extracted], traces: list[TraceView],
        tester_facts: list[str]) -> None:
    """Taking the approval away leaves the change unmade (a test on no side is one the auditor
    cannot place: 'expected side unknown')."""
    out = _run(catalog[instruction_id], find(extracted, *CANCEL_DONE), traces, tester_facts)
    assert out.test is not None, out.reason
    assert out.test.expected_side == "denied", out.test


def test_unimplemented_instructions_are_not_applicable_with_a_reason(
        catalog: dict[str, Instruction], extracted: list[Extracted], traces: list[TraceView],
        tester_facts: list[str]) -> None:
    missing = sorted(set(catalog) - set(IMPLEMENTED))
    assert missing
    item = find(extracted, *DELIVERED_CANCEL)
    for instruction_id in missing:
        out = _run(catalog[instruction_id], item, traces, tester_facts)
        assert not out.applicable and out.test is None
        assert out.reason == f"instruction: offline/heuristic implements no transformation for {instruction_id}"
        assert reason_kind(out.reason) == "instruction"  # no statement would help


def test_a_decline_names_its_kind_by_what_is_missing(catalog: dict[str, Instruction], extracted: list[Extracted],
                                                     traces: list[TraceView], tester_facts: list[str]) -> None:
    # what the statement's test lacks: another statement's test may have it
    zero = _run(catalog["value-numeric-zero"], find(extracted, *DELIVERED_CANCEL), traces, tester_facts)
    assert zero.reason is not None and reason_kind(zero.reason) == "statement"
    assert reason_kind_of("the test names no payment method") == "statement"
    # what the run's tester facts or traces lack holds for every statement
    assert reason_kind_of("the tester facts give no other user's order") == "instruction"
    assert reason_kind_of("the traces show no options the agent offered for a reason") == "instruction"
    # every decline over a sample of statements is tagged, and both kinds occur
    kinds = set()
    for e in extracted[:25]:
        for instruction_id in IMPLEMENTED:
            out = _run(catalog[instruction_id], e, traces, tester_facts)
            if not out.applicable:
                assert out.reason is not None and reason_kind(out.reason) in ("statement", "instruction"), out.reason
                kinds.add(reason_kind(out.reason))
    assert kinds == {"statement", "instruction"}


def test_applicability_depends_on_the_statement(catalog: dict[str, Instruction], extracted: list[Extracted],
                                                traces: list[TraceView], tester_facts: list[str]) -> None:
    refusal, done = find(extracted, *DELIVERED_CANCEL), find(extracted, *CANCEL_DONE)
    decline_refusal = _run(catalog["confirmation-decline"], refusal, traces, tester_facts)
    assert not decline_refusal.applicable and "confirmation question" in decline_refusal.reason
    assert reason_kind(decline_refusal.reason) == "statement"  # another statement's test may have one
    assert _run(catalog["confirmation-decline"], done, traces, tester_facts).applicable
    authority_done = _run(catalog["social-claim-authority"], done, traces, tester_facts)
    assert not authority_done.applicable and "restricts" in authority_done.reason
    assert _run(catalog["social-claim-authority"], refusal, traces, tester_facts).applicable
    zero = _run(catalog["value-numeric-zero"], refusal, traces, tester_facts)
    assert not zero.applicable and "no numeric input in the test" in zero.reason
    # across all statements, most implemented instructions apply to some statements and not to others
    mixed = 0
    sample = extracted[:25]
    for instruction_id in IMPLEMENTED:
        applicable = {_run(catalog[instruction_id], e, traces, tester_facts).applicable for e in sample}
        mixed += applicable == {True, False}
    assert mixed >= 20


def test_transformation_is_deterministic(catalog: dict[str, Instruction], extracted: list[Extracted],
                                         traces: list[TraceView], tester_facts: list[str]) -> None:
    item = find(extracted, *CANCEL_DONE)
    for instruction_id in ("identity-wrong-zip", "confirmation-decline", "wording-typos"):
        first = _run(catalog[instruction_id], item, traces, tester_facts)
        assert first == _run(catalog[instruction_id], item, traces, tester_facts)


def test_another_payment_method_for_a_change_is_never_the_one_paying_the_order(
        catalog: dict[str, Instruction]) -> None:
    """A change of an order's payment method to the method already paying it is another situation
    (value-same-as-current; the auditor put it on the far side of 'the new method differs')."""
    facts = ["Test account 1: email ada@example.com, name Ada Lee, zip code 10001, user id ada_lee_1. "
             "Payment methods: paypal_2222222, gift_card_3333333, credit_card_1111111.",
             "Orders of ada@example.com: #W1000001 is pending, paid with paypal_2222222 (item 1000000001 (Lamp))."]
    ask = "I'd like to modify the payment method of order #W1000001."
    turns = [TurnView(role="user", text=f"Hi! My email is ada@example.com. {ask}"),
             TurnView(role="agent", text="Which payment method would you like to use?")]
    traces = [TraceView(trace_id=f"tr-{m}", turns=[*turns, TurnView(role="user", text=f"Please use {m}."),
                                                   TurnView(role="agent", text=f"I will change the payment method of "
                                                            f"order #W1000001 to {m}. Do you confirm (yes/no)?")])
              for m in ("paypal_2222222", "gift_card_3333333")]
    reply = "I will change the payment method of order #W1000001 to credit_card_1111111. Do you confirm (yes/no)?"
    plain = TestView(test_id="te-1", kind="plain", goal="Check the payment change.",
                     step_hints=[f"Hi! My email is ada@example.com. {ask}", "Please use credit_card_1111111."],
                     success_criteria=["The agent asks the user for explicit confirmation before changing anything"],
                     failure_criteria=[])
    statement = StatementView(statement_id="st-1", text="When a user asks to change the payment method of an "
                              "order, the agent asks to confirm the change", condition="a user asks to change the "
                              "payment method of an order", behavior="asks the user to confirm the new payment method")
    instruction = catalog["payment-different-method"]
    view = InstructionView(instruction_id=instruction.instruction_id, title=instruction.title, text=instruction.text,
                           factor=instruction.factor, applicability=instruction.applicability)
    out = transform(TransformInput(statement=statement, supporting_reply=reply, instruction=view, plain_test=plain,
                                   discovery_traces=traces, recent_tests=[], tester_facts=facts, turn_limit=10))
    assert out.test is not None, out.reason
    joined = _joined(out.test)
    assert "gift_card_3333333" in joined and "paypal_2222222" not in joined, out.test.step_hints
