"""Spec evolution: which v1 tests are v2's invariant tests (issue #28 item 6).

A node kept by id but with changed branches is not kept; ``tests.v1_invariants`` adds preserved
behaviours and removes deprecated ones; v1 tests get fixtures for the tools v2 adds, or are not
runnable.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from adat.spec_records import SpecAssertion
from adat.tdad.evolution import exercises, invariant_tests, kept_clauses, schema_instance
from adat.tdad.spec_loader import parse_spec
from tests.test_tdad.loop_fakes import LIBRARY_SPEC, library_spec, spec_test


def _v2() -> object:
    raw = copy.deepcopy(LIBRARY_SPEC)
    raw["spec_id"], raw["version"] = "library_v2", "2.0"
    raw["policies"][1]["text"] = "Never renew a loan that is overdue by more than 14 days."  # tightened
    raw["decision_tree"] = [n for n in raw["decision_tree"] if n["node_id"] != "END_ASK"]
    raw["decision_tree"][0]["branches"] = [{"when": "card known", "next": "R2_RENEW"}]
    return parse_spec(raw, source="library v2")


def _one_branch_changed(**tests: Any) -> Any:
    """v2 = v1 with R2_RENEW's one branch changed (and ``tests`` guidance, if given)."""
    raw = copy.deepcopy(LIBRARY_SPEC)
    raw["spec_id"], raw["version"] = "library_v2", "2.0"
    raw["decision_tree"][1]["branches"][0]["when"] = "ok and not overdue"
    if tests:
        raw["tests"] = tests
    return parse_spec(raw, source="library v2")


def test_kept_clauses_need_the_same_id_the_same_policy_text_and_the_same_branches() -> None:
    # R1_START is still declared in v2 but its branches changed: not kept
    assert kept_clauses(library_spec(), _v2()) == {"L1_CARD_FIRST", "R2_RENEW", "END_RENEWED"}
    assert kept_clauses(library_spec(), _one_branch_changed()) == {
        "L1_CARD_FIRST", "L2_NO_OVERDUE", "R1_START", "END_ASK", "END_RENEWED"}


def test_invariant_tests_are_the_v1_tests_whose_clauses_v2_keeps() -> None:
    tests = [spec_test("keeps", ["L1_CARD_FIRST", "R2_RENEW", "response_contract"]),
             spec_test("tightened", ["L2_NO_OVERDUE"]),
             spec_test("removed_leaf", ["L1_CARD_FIRST"], leaf="END_ASK"),
             # a leaf both versions only name as a branch target (never declare) is kept
             spec_test("undeclared_leaf", ["L1_CARD_FIRST"], leaf="R2_RENEW_DONE")]
    v1 = copy.deepcopy(LIBRARY_SPEC)
    v1["decision_tree"][1]["branches"].append({"when": "done", "next": "R2_RENEW_DONE"})
    v2 = _v2()
    v2.decision_tree[1].branches.append(v2.decision_tree[1].branches[0].model_copy(update={"when": "done", "next": "R2_RENEW_DONE"}))
    found = invariant_tests(tests, parse_spec(v1, source="v1"), v2)
    assert [t.test_id for t in found.tests] == ["keeps", "undeclared_leaf"] and not found.not_runnable


def test_a_node_kept_by_id_with_changed_branches_is_not_invariant() -> None:
    through = spec_test("through_r2", ["L1_CARD_FIRST"]).model_copy(update={"node_path": ["R1_START", "R2_RENEW"]})
    cites = spec_test("cites_r2", ["R2_RENEW"], leaf="END_ASK")
    asks = spec_test("asks", ["R1_START"], leaf="END_ASK").model_copy(update={"node_path": ["R1_START"]})
    found = invariant_tests([through, cites, asks], library_spec(), _one_branch_changed())
    assert [t.test_id for t in found.tests] == ["asks"]


def test_v1_invariants_preserve_and_deprecate_behaviours() -> None:
    v2 = _one_branch_changed(v1_invariants={
        "preserved_behaviors": [{"id": "no_overdue", "description": "Overdue loans are still never renewed"}],
        "deprecated_behaviors": [{"id": "card_first", "description": "Looking the card up first is dropped"}]})
    v2.policies[1].text = "Never renew an overdue loan."  # reworded: not kept by text, preserved by the spec
    overdue = spec_test("overdue", ["L2_NO_OVERDUE"], leaf="END_ASK")
    card = spec_test("card", ["L1_CARD_FIRST", "R1_START"], leaf="END_ASK")      # kept, but deprecated
    ask = spec_test("ask", ["R1_START"], leaf="END_ASK")
    assert exercises(overdue, v2.tests.v1_invariants.preserved_behaviors) == ["no_overdue"]
    found = invariant_tests([overdue, card, ask], library_spec(), v2)
    assert [t.test_id for t in found.tests] == ["overdue", "ask"]
    assert found.sources == {"overdue": "preserved: no_overdue", "ask": "kept clauses"}


def test_v1_tests_get_fixtures_for_the_tools_v2_adds_or_are_not_runnable() -> None:
    v2 = _one_branch_changed()
    v2.tools.insert(0, v2.tools[0].model_copy(update={"name": "notify_member", "output_schema": {
        "type": "object", "required": ["sent", "channel"],
        "properties": {"sent": {"type": "boolean"}, "channel": {"enum": ["email", "sms"]}}}}))
    ask = spec_test("ask", ["R1_START"], leaf="END_ASK")
    found = invariant_tests([ask], library_spec(), v2)
    assert [json.loads(f.output_json) for f in found.tests[0].fixtures if f.tool == "notify_member"] == [
        {"sent": False, "channel": "email"}]
    # a tool v2 no longer has, or a new tool whose output cannot be made: not runnable, never broken
    gone = ask.model_copy(update={"test_id": "gone", "assertions": [
        SpecAssertion(kind="tool_called", clause="R1_START", tools=["fax_member"])]})
    v2.tools[0].output_schema = {"type": "object", "required": ["code"],
                                 "properties": {"code": {"type": "string", "pattern": "^[0-9]{4}$"}}}
    found = invariant_tests([ask, gone], library_spec(), v2)
    assert found.tests == [] and set(found.not_runnable) == {"ask", "gone"}
    assert "fax_member" in found.not_runnable["gone"] and "notify_member" in found.not_runnable["ask"]


def test_schema_instance_is_the_smallest_valid_value() -> None:
    assert schema_instance({"type": "object", "properties": {"a": {"type": "string"}}}) == {}
    assert schema_instance({"type": ["null", "integer"], "minimum": 3}) == 3
    assert schema_instance({"type": "array", "minItems": 2, "items": {"const": 1}}) == [1, 1]
    assert schema_instance({"anyOf": [{"not": {}}, {"type": "boolean"}]}) is False
