"""A small spec written here (not shipped: a library agent with its own tools and decisions), its
tests, and fake agents that pass a test exactly when the prompt states the test's clauses."""

from __future__ import annotations

import random
from typing import Any

from adat.records import AssertionOutcome, SpecResult
from adat.spec_records import AgentToolCall, SpecAssertion, SpecTest, SpecTurn
from adat.tdad.artifact import PromptArtifact
from adat.tdad.spec_loader import parse_spec

LIBRARY_SPEC: dict[str, Any] = {
    "spec_id": "library_v1", "version": "1.0", "title": "Library Desk",
    "defaults": {"reliability": {"reruns": 3, "min_pass_rate": 0.9}, "compile_budget": {"max_iterations": 4}},
    "tools": [
        {"name": "lookup_member", "description": "Find a member card."},
        {"name": "renew_loan", "description": "Renew a book loan."},
        {"name": "respond", "description": "Answer.",
         "input_schema": {"type": "object", "properties": {"decision": {"type": "string", "enum": [
             "RENEWED", "RENEW_REFUSED", "ASK_CARD"]}}}},
    ],
    "policies": [
        {"id": "L1_CARD_FIRST", "priority": 90, "text": "Always call lookup_member before renew_loan."},
        {"id": "L2_NO_OVERDUE", "priority": 80, "text": "Never renew a loan that is overdue by more than 30 days."},
    ],
    "response_contract": {"required_json_fields": ["decision"], "decision_enum": ["RENEWED", "RENEW_REFUSED", "ASK_CARD"]},
    "decision_tree": [
        {"node_id": "R1_START", "description": "Route the renewal request.",
         "branches": [{"when": "card known", "next": "R2_RENEW"}, {"when": "card unknown", "next": "END_ASK"}]},
        {"node_id": "R2_RENEW", "description": "Renew after checks.",
         "requirements": {"must_call_tools_in_order": ["lookup_member", "renew_loan"]},
         "branches": [{"when": "ok", "next": "END_RENEWED"}]},
        {"node_id": "END_ASK", "description": "Ask for the card number."},
        {"node_id": "END_RENEWED", "description": "Confirm the renewal."},
    ],
}

SEED = PromptArtifact(system_prompt="You are the library desk assistant.\nAlways call respond last.\n",
                      tool_descriptions={"lookup_member": "Find a member.", "renew_loan": "Renew.", "respond": "Answer."})


def library_spec() -> Any:
    return parse_spec(LIBRARY_SPEC, source="library test spec")


def spec_test(test_id: str, clauses: list[str], *, split: str = "visible", leaf: str = "END_RENEWED",
              turns: list[str] | None = None, title: str = "") -> SpecTest:
    return SpecTest(test_id=test_id, run_id="", spec_id="library_v1", spec_version="1.0", family="MFT",
                    split=split, leaf_id=leaf, clauses=clauses, title=title,  # type: ignore[arg-type]
                    user_turns=turns or [f"please renew my book ({test_id})"],
                    assertions=[SpecAssertion(kind="decision_in", clause=c, values=["RENEWED"]) for c in clauses])


def result(test: SpecTest, passed_by_clause: dict[str, bool], *, calls: list[str] | None = None,
           reply: str = "done") -> SpecResult:
    outcomes = [AssertionOutcome(index=i, kind=a.kind, clause=a.clause,
                                outcome="pass" if passed_by_clause.get(a.clause, False) else "fail")
                for i, a in enumerate(test.assertions)]
    turn = SpecTurn(user=test.user_turns[0], reply=reply, respond_json=['{"decision": "RENEWED"}'],
                    tool_calls=[AgentToolCall.observed(n, "{}", "{}") for n in (calls or [])])
    return SpecResult(result_id="x", run_id="", test_id=test.test_id, spec_id=test.spec_id,
                      spec_version=test.spec_version, split=test.split, family=test.family, artifact_digest="",
                      passed=all(o.outcome == "pass" for o in outcomes), assertion_results=outcomes, turns=[turn])


class ClauseReadingAgent:
    """Passes an assertion when the artifact mentions its clause id; counts the runs it makes."""

    def __init__(self, *, flaky: dict[str, float] | None = None, seed: int = 0) -> None:
        self.runs: list[tuple[str, str, int]] = []
        self.flaky = flaky or {}
        self._rng = random.Random(seed)

    def __call__(self, artifact: PromptArtifact, test: SpecTest, rerun: int) -> SpecResult:
        self.runs.append((artifact.digest(), test.test_id, rerun))
        text = artifact.system_prompt + " ".join(artifact.tool_descriptions.values())
        ok = {a.clause: f"[{a.clause}]" in text for a in test.assertions}
        if test.test_id in self.flaky and rerun % 2 == 1:
            ok = dict.fromkeys(ok, False)  # fails every other rerun, whatever the prompt says
        calls = ["lookup_member", "renew_loan"] if "[L1_CARD_FIRST]" in text else ["renew_loan"]
        return result(test, ok, calls=calls)
