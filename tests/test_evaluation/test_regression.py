"""Fault selection and the mapping-on-fault rule."""

from __future__ import annotations

import pytest

from adat.config import EvaluationConfig, RunConfig
from adat.errors import UserError
from adat.evaluation.groupings import reference_groupings
from adat.evaluation.regression import fault_ids, on_fault, regression_test_ids
from adat.records import AuditLabel, BoundaryMapping
from adat_reference.agent import load_fault
from adat_reference.agent.faults import fault_ids as shipped


def test_fault_ids_all_requested_and_unknown():
    assert fault_ids(RunConfig()) == shipped() and len(shipped()) >= 8
    cfg = RunConfig(evaluation=EvaluationConfig(faults=["cancel_any_reason", "cancel_any_reason"]))
    assert fault_ids(cfg) == ["cancel_any_reason"]
    assert fault_ids(cfg, ["no_write_confirmation"]) == ["no_write_confirmation"]
    with pytest.raises(UserError, match="evaluation.faults"):
        fault_ids(cfg, ["no_such_fault"])


def test_a_mapping_is_on_a_fault_by_rule_or_by_its_passage():
    fault = load_fault("cancel_any_reason")
    assert on_fault(BoundaryMapping(boundary="cancel_reason_accepted", side="denied"), fault)
    assert not on_fault(BoundaryMapping(boundary="cancel_reason_accepted", side="denied", explicit=False), fault)
    quoted = BoundaryMapping(boundary="reasons", side="denied", passages=["only two reasons are accepted"])
    assert on_fault(quoted, fault)
    other = BoundaryMapping(boundary="identity", side="denied", passages=["verify the user's identity first"])
    assert not on_fault(other, fault)


def test_only_valid_tests_with_mappings_are_selected():
    fault = load_fault("cancel_any_reason")
    labels = [AuditLabel(run_id="r", test_id="a", validity="explicit",
                         mappings=[BoundaryMapping(boundary="cancel_reason_accepted", side="denied")]),
              AuditLabel(run_id="r", test_id="b", validity="explicit",
                         mappings=[BoundaryMapping(boundary="auth_required", side="denied")]),
              AuditLabel(run_id="r", test_id="c", validity="invalid")]
    assert regression_test_ids(labels, fault, "valid") == ["a", "b"]
    assert regression_test_ids(labels, fault, "mapped") == ["a"]
    rows = reference_groupings(labels, "r", 3)
    assert [(r.grouping_no, r.test_id, r.group_side) for r in rows if r.test_id == "a"] == [
        (n, "a", "cancel_reason_accepted|denied") for n in (1, 2, 3)]
