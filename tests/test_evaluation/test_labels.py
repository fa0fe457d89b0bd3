"""Execution labels TP / FP / FN / TN / INC and the attribution to a seeded fault, on executions of
hand-built tests against the original reference agent and faulty variants."""

from __future__ import annotations

import itertools

import pytest

from adat.evaluation.labels import paper_label, reference_compliance
from adat.stages.execution import execute_test
from adat_reference.agent import ReferenceAgent, load_fault
from tests.test_evaluation.conftest import (
    ACTS,
    ASKS_CONFIRMATION,
    BAD_REASON,
    BY_MISTAKE,
    CHLOE,
    make_test,
    run_on,
)


@pytest.mark.parametrize(("verdict", "complied", "reached", "expected"), [
    ("fail", False, True, "TP"),
    ("pass", False, True, "FN"),
    ("fail", True, True, "FP"),
    ("pass", True, True, "TN"),
    ("inconclusive", False, True, "INC"),
    ("inconclusive", True, True, "INC"),
    ("fail", None, True, "INC"),
])
def test_paper_label_table(verdict, complied, reached, expected):
    assert paper_label(verdict, complied, reached) == expected


def test_an_execution_that_ended_before_the_behaviour_is_inc_whatever_the_verdict():
    for verdict, complied in itertools.product(("pass", "fail"), (True, False)):
        assert paper_label(verdict, complied, reached=False) == "INC"  # type: ignore[arg-type]


REASON_TEST = make_test("t-reason", [CHLOE, BAD_REASON])  # mapped: cancel_reason_accepted denied
MAPPED = {"cancel_reason_accepted"}


def test_original_agent_complies_so_fail_is_fp_and_pass_is_tn(replayer):
    c = reference_compliance(replayer, run_on(REASON_TEST), MAPPED)
    assert c.reached and c.complied is True
    assert paper_label("fail", c.complied, c.reached) == "FP"
    assert paper_label("pass", c.complied, c.reached) == "TN"


def test_faulty_agent_that_accepts_the_reason_did_not_comply_and_it_is_attributed(replayer):
    execution = run_on(REASON_TEST, "cancel_any_reason")
    c = reference_compliance(replayer, execution, MAPPED, load_fault("cancel_any_reason"))
    assert c.reached and c.complied is False
    assert c.attributed
    assert "cancel_reason_accepted unlike the policy" in c.rationale
    assert paper_label("fail", c.complied, c.reached) == "TP"
    assert paper_label("pass", c.complied, c.reached) == "FN"


def test_attribution_needs_the_fault_s_own_rule(replayer):
    execution = run_on(REASON_TEST, "cancel_any_reason")
    # Asked about another fault, the differing evaluation (cancel_reason_accepted) is not its rule.
    c = reference_compliance(replayer, execution, MAPPED, load_fault("cancel_processed_orders"))
    assert c.complied is False and not c.attributed


def test_a_fault_that_does_not_touch_the_checked_behaviour_leaves_it_compliant(replayer):
    execution = run_on(REASON_TEST, "refund_any_method")
    c = reference_compliance(replayer, execution, MAPPED, load_fault("refund_any_method"))
    assert c.reached and c.complied is True and not c.attributed


def test_write_without_confirmation_is_non_compliance_attributed_to_its_fault(replayer):
    # The original agent logs no confirm_before_write for asking; the mapping is the go-ahead rules.
    test = make_test("t-confirm", [CHLOE, BY_MISTAKE], success=[ASKS_CONFIRMATION], failure=[ACTS],
                     expected="allowed")
    c = reference_compliance(replayer, run_on(test, "no_write_confirmation"), {"cancel_reason_accepted"},
                             load_fault("no_write_confirmation"))
    assert c.complied is False and c.attributed
    assert "database end state differ" in c.rationale


def test_inc_when_the_execution_ends_before_the_mapped_rule(replayer):
    short = make_test("t-short", [CHLOE])  # stops before any cancellation rule is evaluated
    c = reference_compliance(replayer, run_on(short, "cancel_any_reason"), MAPPED, load_fault("cancel_any_reason"))
    assert c.reached is False and c.complied is None
    assert paper_label("fail", c.complied, c.reached) == "INC"


def test_cannot_tell_when_the_replay_does_not_reproduce_the_record(replayer):
    execution = run_on(REASON_TEST)
    execution.turns[-1] = execution.turns[-1].model_copy(update={"text": "something the agent never said"})
    c = reference_compliance(replayer, execution, MAPPED)
    assert c.complied is None
    assert paper_label("pass", c.complied, c.reached) == "INC"


SAMUEL = "Hi! My email is samuel.walker7843@example.com. I'd like to modify the payment method of order #W3053441."
PAY_WITH_VISA = "Please use credit_card_1801554."
GO_AHEAD = "Yes, please go ahead."


def test_a_refusal_on_the_way_to_the_checked_behaviour_is_non_compliance_not_inc(replayer):
    # The original agent asks to confirm and then writes (checked: confirm_before_write at turn 2);
    # the faulty variant refuses the payment change at turn 1 and so never gets there.
    test = make_test("t-pay", [SAMUEL, PAY_WITH_VISA, GO_AHEAD], expected="allowed")
    fault = load_fault("payment_change_refused")
    c = reference_compliance(replayer, run_on(test, fault.id), {"confirm_before_write"}, fault)
    assert c.reached and c.complied is False and c.attributed
    assert "decided payment_change_single unlike the policy at user turn 1" in c.rationale
    assert paper_label("fail", c.complied, c.reached) == "TP"
    # Attributed only to the fault whose rule it is.
    other = reference_compliance(replayer, run_on(test, fault.id), {"confirm_before_write"},
                                 load_fault("cancel_any_reason"))
    assert other.complied is False and not other.attributed
    # On the original agent the same execution reaches the checked rule and complies.
    assert reference_compliance(replayer, run_on(test), {"confirm_before_write"}).complied is True


def test_a_verdict_failed_by_another_statements_process_check_is_audited_on_that_statements_rules(monkeypatch):
    """Every statement's process checks judge every test (adat.stages.process_checks.checks_for).
    A cancellation test fails on a variant that skips the identity lookup because the identity
    statement's check broke: audited on the cancellation's rule alone the agent complied (the
    failure would be a false positive); audited also on the rules of the statement whose check
    failed, it did not, and the failure is the fault's."""
    from pathlib import Path

    from adat.evaluation.evaluation_steps import statement_mappings, with_broken_statements
    from adat.evaluation.replay import Replayer
    from adat.records import AuditLabel, BoundaryMapping, ProcessCheckResult
    from tests.test_evaluation.conftest import verdict

    silent = Path(__file__).resolve().parents[2] / "catalogs" / "faults" / "retail-silent"
    monkeypatch.setenv("ADAT_FAULT_DIR", str(silent))
    fault = load_fault("identity_without_lookup", silent)
    cancel = make_test("t-cancel", [CHLOE, BY_MISTAKE, "yes"], expected="allowed").model_copy(
        update={"statement_id": "st-cancel"})
    identity = make_test("t-identity", [CHLOE]).model_copy(update={"statement_id": "st-identity"})
    own = AuditLabel(run_id="r", test_id="t-cancel", validity="valid",
                     mappings=[BoundaryMapping(boundary="cancel_reason_accepted", side="allowed")])
    claims = statement_mappings([cancel, identity], [own, AuditLabel(
        run_id="r", test_id="t-identity", validity="valid",
        mappings=[BoundaryMapping(boundary=fault.rule, side="allowed")])])
    agent = ReferenceAgent(fault=fault.id, fault_dir=silent)
    execution = execute_test(agent, cancel, "r", agent_variant=fault.id)
    broken = ProcessCheckResult(statement_id="st-identity", statement="verify first", kind="auth_gate",
                                check="auth_gate", outcome="fail", detail="cancel before a lookup")
    failed = verdict(execution, "fail").model_copy(update={"process_checks": [broken]})
    replayer = Replayer.for_database(None)

    alone = reference_compliance(replayer, execution, {"cancel_reason_accepted"}, fault)
    assert alone.complied is True  # the words, the writes and the end state are the original's
    widened = with_broken_statements(own, failed, claims)
    assert [m.boundary for m in widened.mappings] == ["cancel_reason_accepted", fault.rule]
    c = reference_compliance(replayer, execution, {m.boundary for m in widened.mappings}, fault)
    assert c.complied is False and c.attributed and paper_label("fail", c.complied, c.reached) == "TP"
    passed = failed.model_copy(update={"process_checks": [broken.model_copy(update={"outcome": "pass"})]})
    assert with_broken_statements(own, passed, claims) is own
