"""The reference auditor on hand-built tests: explicit, wrong facts, never reaches a rule,
criteria that disagree with the policy, and the checked-situation rule itself."""

from __future__ import annotations

from adat.evaluation.audit import ReferenceAuditor, criteria_side
from adat.evaluation.replay import checked_situation
from tests.test_evaluation.conftest import (
    ACTS,
    ASKS_CONFIRMATION,
    BAD_REASON,
    BY_MISTAKE,
    CHLOE,
    REFUSES,
    RUN,
    make_test,
    run_on,
)


def _auditor(replayer, rules) -> ReferenceAuditor:  # type: ignore[no-untyped-def]
    return ReferenceAuditor(replayer, RUN)


def test_valid_test_is_explicit_with_the_denied_rule_and_its_passage(replayer, rules):
    test = make_test("t-reason", [CHLOE, BAD_REASON],
                     facts=["chloe.costa1018@example.com has order #W9741594, which is pending"])
    label = _auditor(replayer, rules).audit(test, run_on(test))
    assert label.validity == "explicit", label.reasons
    assert [(m.boundary, m.side, m.explicit) for m in label.mappings] == [("cancel_reason_accepted", "denied", True)]
    assert label.mappings[0].passages == [rules.rules["cancel_reason_accepted"].policy.strip()]
    assert label.produced_by == "reference/side-log"


def test_go_ahead_turn_maps_every_rule_on_its_allowed_side(replayer, rules):
    test = make_test("t-ok", [CHLOE, BY_MISTAKE], success=[ASKS_CONFIRMATION], failure=[ACTS], expected="allowed")
    label = _auditor(replayer, rules).audit(test, run_on(test))
    assert label.validity == "explicit", label.reasons
    assert {m.side for m in label.mappings} == {"allowed"}
    assert {"cancel_requires_pending", "cancel_reason_accepted", "order_owner"} <= {m.boundary for m in label.mappings}


def test_wrong_assumed_fact_makes_the_test_invalid(replayer, rules):
    test = make_test("t-facts", [CHLOE, BAD_REASON],
                     facts=["Order #W9741594 of chloe.costa1018@example.com is delivered"])
    label = _auditor(replayer, rules).audit(test, run_on(test))
    assert label.validity == "invalid"
    assert label.mappings == []
    assert any(r.startswith("(a)") and "'pending', not 'delivered'" in r for r in label.reasons), label.reasons


def test_unknown_order_in_hints_is_a_wrong_fact_when_the_test_expects_the_action(replayer, rules):
    hints = [CHLOE, "Please cancel order #W1234567, I ordered it by mistake."]
    allowed = make_test("t-unknown", hints, success=[ASKS_CONFIRMATION], failure=[ACTS], expected="allowed")
    label = _auditor(replayer, rules).audit(allowed, run_on(allowed))
    assert label.validity == "invalid"
    assert any("order #W1234567" in r for r in label.reasons)
    # ... but a probe of the lookup condition may name an unknown order on purpose
    probe = make_test("t-probe", hints)
    label = _auditor(replayer, rules).audit(probe, run_on(probe))
    assert label.validity == "explicit", label.reasons
    assert [(m.boundary, m.side) for m in label.mappings] == [("order_exists", "denied")]


def test_conversation_that_never_reaches_a_rule_is_invalid(replayer, rules):
    test = make_test("t-chat", ["Hello there!", "What is the weather like?"])
    label = _auditor(replayer, rules).audit(test, run_on(test))
    assert label.validity == "invalid"
    assert any(r.startswith("(b)") for r in label.reasons)


def test_criteria_that_disagree_with_the_rule_outcome_make_it_invalid(replayer, rules):
    # The policy refuses this reason; a test expecting the cancellation to go ahead is wrong.
    test = make_test("t-wrong-side", [CHLOE, BAD_REASON], success=[ASKS_CONFIRMATION], failure=[REFUSES],
                     expected="allowed")
    label = _auditor(replayer, rules).audit(test, run_on(test))
    assert label.validity == "invalid"
    assert any(r.startswith("(c)") and "cancel_reason_accepted" in r for r in label.reasons), label.reasons


def test_missing_expected_side_is_read_from_the_criteria(replayer, rules):
    test = make_test("t-inferred", [CHLOE, BAD_REASON], expected=None)
    label = _auditor(replayer, rules).audit(test, None)  # no execution: the hints are replayed
    assert label.validity == "explicit", label.reasons
    assert any("criteria wording" in r for r in label.reasons)
    unclear = make_test("t-unclear", [CHLOE, BAD_REASON], success=["The agent answers"], failure=[],
                        expected=None)
    label = _auditor(replayer, rules).audit(unclear, None)
    assert label.validity == "invalid"
    assert any("expected side unknown" in r for r in label.reasons)


def test_criteria_contradicting_the_declared_side_make_it_invalid(replayer, rules):
    test = make_test("t-contra", [CHLOE, BAD_REASON], success=[ACTS, "The agent says the order has been cancelled"],
                     failure=[REFUSES], expected="denied")
    label = _auditor(replayer, rules).audit(test, run_on(test))
    assert label.validity == "invalid"
    assert any("contradict" in r for r in label.reasons)


def test_checked_situation_prefers_denials_of_the_last_deciding_turn():
    events = [("auth_lookup", "allowed", 0), ("order_exists", "allowed", 1), ("cancel_reason_accepted", "denied", 1),
              ("order_exists", "allowed", 1)]
    situation = checked_situation(events)
    assert situation is not None
    assert situation.turn == 1 and situation.side == "denied"
    assert situation.events == (("cancel_reason_accepted", "denied"),)
    allowed = checked_situation([("auth_lookup", "denied", 0), ("a", "allowed", 2), ("b", "allowed", 2), ("a", "allowed", 2)])
    assert allowed is not None and allowed.events == (("a", "allowed"), ("b", "allowed"))
    assert checked_situation([]) is None


def test_criteria_side_votes():
    assert criteria_side(make_test("a", ["x"], success=[REFUSES], failure=[ACTS])) == "denied"
    assert criteria_side(make_test("b", ["x"], success=[ACTS], failure=[REFUSES])) == "allowed"
    assert criteria_side(make_test("c", ["x"], success=["The agent asks the user to verify their identity"],
                                   failure=[])) == "denied"
    assert criteria_side(make_test("d", ["x"], success=["The agent transfers the user to a human agent"],
                                   failure=[])) == "allowed"
    assert criteria_side(make_test("e", ["x"], success=["The agent greets the user"], failure=[])) is None
