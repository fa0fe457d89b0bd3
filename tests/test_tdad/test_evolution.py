"""Spec evolution: which v1 tests are v2's invariant tests."""

from __future__ import annotations

import copy

from adat.tdad.evolution import invariant_tests, kept_clauses
from adat.tdad.spec_loader import parse_spec
from tests.test_tdad.loop_fakes import LIBRARY_SPEC, library_spec, spec_test


def _v2() -> object:
    raw = copy.deepcopy(LIBRARY_SPEC)
    raw["spec_id"], raw["version"] = "library_v2", "2.0"
    raw["policies"][1]["text"] = "Never renew a loan that is overdue by more than 14 days."  # tightened
    raw["decision_tree"] = [n for n in raw["decision_tree"] if n["node_id"] != "END_ASK"]
    raw["decision_tree"][0]["branches"] = [{"when": "card known", "next": "R2_RENEW"}]
    return parse_spec(raw, source="library v2")


def test_kept_clauses_need_the_same_id_and_for_a_policy_the_same_text() -> None:
    assert kept_clauses(library_spec(), _v2()) == {"L1_CARD_FIRST", "R1_START", "R2_RENEW", "END_RENEWED"}


def test_invariant_tests_are_the_v1_tests_whose_clauses_v2_keeps() -> None:
    tests = [spec_test("keeps", ["L1_CARD_FIRST", "R2_RENEW", "response_contract"]),
             spec_test("tightened", ["L2_NO_OVERDUE"]),
             spec_test("removed_leaf", ["L1_CARD_FIRST"], leaf="END_ASK"),
             # a leaf both versions only name as a branch target (never declare) is kept
             spec_test("undeclared_leaf", ["L1_CARD_FIRST"], leaf="R2_RENEW_DONE")]
    v1 = copy.deepcopy(LIBRARY_SPEC)
    v1["decision_tree"][1]["branches"].append({"when": "done", "next": "R2_RENEW_DONE"})
    v2 = _v2()
    v2.decision_tree[1].branches.append(v2.decision_tree[1].branches[0].model_copy(update={"next": "R2_RENEW_DONE"}))
    assert [t.test_id for t in invariant_tests(tests, parse_spec(v1, source="v1"), v2)] == ["keeps", "undeclared_leaf"]
