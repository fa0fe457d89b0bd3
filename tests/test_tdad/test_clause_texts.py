"""Clause sentences for the contract and retry policies; failures citing only text-less clauses
are blamed on the test's other clauses."""

from __future__ import annotations

from adat.contracts.tdad_clauses import clause_texts, retry_clause
from adat.records import AssertionOutcome, SpecResult
from adat.spec_records import SpecAssertion, SpecTest
from adat.tdad.compiler import group_failures
from adat.tdad.spec_loader import parse_spec
from tests.support.tdad_spec import library_spec


def test_contract_and_retry_policies_have_sentences() -> None:
    texts = clause_texts(parse_spec(library_spec()))
    assert texts[retry_clause("check_member")] == "check_member: on timeout, retry it up to 1 time(s)."
    assert retry_clause("list_loans") not in texts  # retries: 0
    assert texts["response_contract"].startswith("Call respond exactly once per turn")
    assert "LOAN_RENEWED" in texts["response_contract"]


def test_failures_citing_text_less_clauses_fall_back_to_the_path() -> None:
    spec = parse_spec(library_spec())
    test = SpecTest(test_id="t", run_id="r", spec_id=spec.spec_id, spec_version="1.0", family="MFT", split="visible",
                    leaf_id="END_X", clauses=["END_X", "R1_ROUTE", "R2_MEMBER"], user_turns=["hi"],
                    assertions=[SpecAssertion(kind="decision_in", clause="END_X", values=["A"])])
    result = SpecResult(result_id="x", run_id="r", test_id="t", spec_id=spec.spec_id, spec_version="1.0",
                        split="visible", family="MFT", passed=False, artifact_digest="",
                        assertion_results=[AssertionOutcome(index=0, kind="decision_in", clause="END_X",
                                                            outcome="fail")])
    groups = group_failures([test], [result], clause_texts(spec))
    assert {g.clause for g in groups} == {"END_X", "R1_ROUTE", "R2_MEMBER"}
    assert all(g.clause_text for g in groups if g.clause != "END_X")


def test_failures_citing_clauses_already_in_the_prompt_fall_back_too() -> None:
    spec = parse_spec(library_spec())
    test = SpecTest(test_id="t", run_id="r", spec_id=spec.spec_id, spec_version="1.0", family="MFT", split="visible",
                    leaf_id="END_LOAN_RENEWED", clauses=["R1_ROUTE", "R2_MEMBER", "R5_RENEW"], user_turns=["hi"],
                    assertions=[SpecAssertion(kind="json_in", clause="R1_ROUTE", field="node_id", values=["A"])])
    result = SpecResult(result_id="x", run_id="r", test_id="t", spec_id=spec.spec_id, spec_version="1.0",
                        split="visible", family="MFT", passed=False, artifact_digest="",
                        assertion_results=[AssertionOutcome(index=0, kind="json_in", clause="R1_ROUTE",
                                                            outcome="fail")])
    texts = clause_texts(spec)
    assert {g.clause for g in group_failures([test], [result], texts)} == {"R1_ROUTE", "R2_MEMBER", "R5_RENEW"}
    fallback = group_failures([test], [result], texts, frozenset({"R1_ROUTE", "R5_RENEW"}))
    assert [g.clause for g in fallback] == ["R1_ROUTE", "R2_MEMBER"]  # what the prompt has is not blamed again
