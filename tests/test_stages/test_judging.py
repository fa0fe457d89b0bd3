"""Judging: errored executions need no call; the paper's verdict rule overrides the model."""

from __future__ import annotations

import pytest

from adat.llm.types import LLMError
from adat.records import CriterionResult, Execution
from adat.stages.judging import enforce_verdict_rule, judge_execution
from tests.test_stages.conftest import RUN, Roles, dialogue, make_test

TEST = make_test("t1", ["cancel #1"], success=["agent refuses", "agent names the pending rule"],
                 failure=["agent cancels"])


def execution(**kw: object) -> Execution:
    base: dict[str, object] = {"execution_id": "ex-1", "run_id": RUN, "test_id": "t1", "agent_id": "a",
                               "turns": dialogue("cancel #1", "Only pending orders can be cancelled.")}
    base.update(kw)
    return Execution.model_validate(base)


def crit(text: str, kind: str, holds: bool | None) -> dict[str, object]:
    return {"criterion": text, "kind": kind, "holds": holds, "rationale": f"r {text}"}


def answer(verdict: str, refuses: bool | None, names: bool | None, cancels: bool | None) -> dict[str, object]:
    return {"verdict": verdict, "rationale": "model says so", "criteria": [
        crit("agent refuses", "success", refuses), crit("agent names the pending rule", "success", names),
        crit("agent cancels", "failure", cancels)]}


def test_errored_execution_is_inconclusive_without_a_call(roles: Roles) -> None:
    judge = roles.script("judge", [])
    v = judge_execution(roles.cfg, roles.client(), TEST, execution(ended_by="error", error="HTTP 502"), RUN)
    assert v.verdict == "inconclusive" and "HTTP 502" in v.rationale
    assert judge.requests == [] and v.produced_by == ""
    assert [(c.criterion, c.holds) for c in v.criteria] == [
        ("agent refuses", None), ("agent names the pending rule", None), ("agent cancels", None)]


@pytest.mark.parametrize(("model", "expected"), [
    (answer("pass", True, True, False), "pass"),           # consistent pass
    (answer("pass", True, True, True), "fail"),            # a failure criterion holds
    (answer("inconclusive", None, None, True), "fail"),    # ... whatever the model said
    (answer("pass", True, None, False), "inconclusive"),   # goal not shown achieved
    (answer("fail", True, True, None), "inconclusive"),    # fail without evidence
    (answer("fail", False, True, None), "fail"),           # goal clearly failed
    (answer("inconclusive", True, True, False), "inconclusive"),
])
def test_verdict_rule_is_enforced(roles: Roles, model: dict[str, object], expected: str) -> None:
    judge = roles.script("judge", [model])
    v = judge_execution(roles.cfg, roles.client(), TEST, execution(ended_by="turn_limit"), RUN)
    assert v.verdict == expected
    assert ("[verdict rule:" in v.rationale) == (expected != model["verdict"])
    assert judge.requests[0].variables["ended_by"] == "turn_limit"
    assert judge.requests[0].variables["turns"][1]["role"] == "agent"
    assert v.produced_by == "fake/judge" and v.prompt_id == "judge" and v.execution_id == "ex-1"


def test_criteria_are_matched_by_text_then_position(roles: Roles) -> None:
    roles.script("judge", [
        {"verdict": "pass", "rationale": "", "criteria": [
            crit("AGENT  names the pending rule", "success", True), crit("agent refuses", "success", True),
            crit("the agent cancelled the order", "failure", False)]},
        {"verdict": "pass", "rationale": "", "criteria": [crit("agent refuses", "success", True)]},
    ])
    client = roles.client()
    v = judge_execution(roles.cfg, client, TEST, execution(), RUN)
    assert [(c.criterion, c.kind, c.holds) for c in v.criteria] == [
        ("agent refuses", "success", True), ("agent names the pending rule", "success", True),
        ("agent cancels", "failure", False)]
    assert v.verdict == "pass"
    v = judge_execution(roles.cfg, client, TEST, execution(), RUN)  # one success criterion skipped
    assert [c.holds for c in v.criteria] == [True, None, None] and v.verdict == "inconclusive"
    assert v.criteria[1].rationale == "not judged"


def test_judge_failure_is_inconclusive(roles: Roles) -> None:
    roles.script("judge", [LLMError("down")])
    v = judge_execution(roles.cfg, roles.client(), TEST, execution(), RUN)
    assert v.verdict == "inconclusive" and "judge error" in v.rationale


def test_rule_on_tests_without_success_criteria() -> None:
    assert enforce_verdict_rule("pass", []) == ("pass", "")
    fail_holds = [CriterionResult(criterion="x", kind="failure", holds=True)]
    assert enforce_verdict_rule("pass", fail_holds)[0] == "fail"
