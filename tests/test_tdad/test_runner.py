"""The spec-test runner: respond exactly once per turn, fixtures, observability, other targets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adat.config import RoleModels, RunConfig
from adat.llm.client import LLMClient
from adat.llm.providers.provider_registry import default_registry
from adat.llm.types import LLMRequest, LLMResponse, ToolCall
from adat.spec_records import SpecAssertion, SpecTest, ToolFixture
from adat.targets.base import AgentReply, AgentToolCall
from adat.tdad.artifact import PromptArtifact
from adat.tdad.runner import run_spec_test
from adat.tdad.spec_loader import parse_spec
from tests.support.tdad_spec import LIBRARY_SEED_PROMPT, library_spec

ARTIFACT = PromptArtifact(system_prompt=LIBRARY_SEED_PROMPT, tool_descriptions={"renew_loan": "Renew one loan."})
RESPOND = {"node_id": "END_LOAN_RENEWED", "decision": "LOAN_RENEWED", "user_message": "Renewed."}


def _call(name: str, args: dict, n: int = 0) -> LLMResponse:
    return LLMResponse(tool_calls=[ToolCall(id=f"c{n}", name=name, arguments=json.dumps(args))])


def _client(tmp_path: Path, outputs) -> tuple[RunConfig, LLMClient, list[LLMRequest]]:
    cfg = RunConfig(data_dir=str(tmp_path), models=RoleModels(spec_agent="fake/agent"))
    registry = default_registry()
    fake = registry.register_fake("agent", outputs)
    return cfg, LLMClient(cfg, "r1", registry=registry, cache_dir=tmp_path / "cache"), fake.requests


def _test(**kw) -> SpecTest:
    base = dict(test_id="t1", run_id="r1", spec_id="librarydesk_v1", spec_version="1.0", family="MFT",
                split="visible", leaf_id="END_LOAN_RENEWED", user_turns=["renew L1, card C1 pin 1"],
                fixtures=[ToolFixture(tool="check_member", output_json='{"valid": true}'),
                          ToolFixture(tool="renew_loan", output_json='{"status": "renewed"}')],
                assertions=[SpecAssertion(kind="decision_in", clause="R5_RENEW", values=["LOAN_RENEWED"]),
                            SpecAssertion(kind="auth_gate", clause="L2_MEMBER_FIRST", tools=["check_member", "renew_loan"])])
    base.update(kw)
    return SpecTest.model_validate(base)


def test_turn_with_one_respond_passes_and_tools_see_fixtures(tmp_path: Path) -> None:
    script = [_call("check_member", {"card": "C1", "pin": "1"}), _call("renew_loan", {"loan_id": "L1"}),
              _call("respond", RESPOND)]
    cfg, client, requests = _client(tmp_path, script)
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, _test(), run_id="r1")
    assert result.passed, result.assertion_results
    assert [r.kind for r in result.assertion_results] == ["respond_once", "decision_in", "auth_gate"]
    assert [c.result_json for c in result.turns[0].tool_calls or []][:2] == ['{"valid": true}', '{"status": "renewed"}']
    assert result.turns[0].reply == "Renewed."
    assert requests[0].messages[0]["content"] == LIBRARY_SEED_PROMPT
    tools = {t["function"]["name"]: t["function"]["description"] for t in requests[0].tools or []}
    assert tools["renew_loan"] == "Renew one loan." and tools["check_member"] == ""  # the artifact's, not the spec's


def test_turn_without_respond_fails_even_after_an_earlier_answer(tmp_path: Path) -> None:
    script = [_call("respond", RESPOND), LLMResponse(content="Renewed again, trust me.")]
    cfg, client, _ = _client(tmp_path, script)
    test = _test(user_turns=["renew L1", "and again"],
                 assertions=[SpecAssertion(kind="text_contains_any", clause="R5_RENEW", values=["renewed"])])
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, test, run_id="r1")
    assert not result.passed
    own = [r for r in result.assertion_results if r.kind == "respond_once"]
    assert [r.outcome for r in own] == ["pass", "fail"] and "0 times" in own[1].detail
    assert result.turns[1].respond_json == []  # the first turn's answer is not reused


def test_two_responds_in_a_turn_fail_and_gate_and_failures_are_enforced(tmp_path: Path) -> None:
    both = LLMResponse(tool_calls=[ToolCall(id="a", name="respond", arguments=json.dumps(RESPOND)),
                                   ToolCall(id="b", name="respond", arguments=json.dumps(RESPOND))])
    cfg, client, _ = _client(tmp_path, [_call("renew_loan", {"loan_id": "L1"}), both])
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, _test(), run_id="r1")
    outcomes = {r.kind: r.outcome for r in result.assertion_results}
    assert outcomes == {"respond_once": "fail", "decision_in": "pass", "auth_gate": "fail"}


def test_fixture_failures_retry_window_and_schema_errors(tmp_path: Path) -> None:
    script = [_call("check_member", {"card": "C1"}), _call("check_member", {"card": "C1", "pin": "1"}, 1),
              _call("check_member", {"card": "C1", "pin": "1"}, 2), _call("respond", RESPOND)]
    cfg, client, _ = _client(tmp_path, script)
    test = _test(fixtures=[ToolFixture(tool="check_member", output_json='{"valid": true}', failure="timeout",
                                       fail_times=1)],
                 assertions=[SpecAssertion(kind="tool_called_exactly", clause="tools", tools=["check_member"], count=3)])
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, test, run_id="r1")
    outputs = [json.loads(c.error or c.result_json or '') for c in result.turns[0].tool_calls or []]
    assert "invalid arguments" in outputs[0]["error"] and outputs[1] == {"error": "timeout"}
    assert outputs[2] == {"valid": True} and result.passed


class _TextOnlyTarget:
    """A target that reports nothing but its replies."""

    agent_id = "text-only"

    def reset(self) -> str:
        return "s"

    def invoke(self, session_id: str, user_message: str) -> str:
        return json.dumps({"decision": "LOAN_RENEWED", "user_message": "Your loan is renewed."})


def test_other_targets_run_spec_tests_and_unobservable_is_never_a_pass(tmp_path: Path) -> None:
    cfg, client, _ = _client(tmp_path, [])
    test = _test(assertions=[SpecAssertion(kind="tool_called", clause="R5_RENEW", tools=["renew_loan"])])
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, test, run_id="r1",
                           target=_TextOnlyTarget())
    assert [r.outcome for r in result.assertion_results] == ["not_observable"] and not result.passed
    test = _test(assertions=[SpecAssertion(kind="tool_called", clause="R5_RENEW", tools=["renew_loan"]),
                             SpecAssertion(kind="decision_in", clause="R5_RENEW", values=["LOAN_RENEWED"]),
                             SpecAssertion(kind="no_pii", clause="L1_PRIVATE", values=["555-0199"])])
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, test, run_id="r1",
                           target=_TextOnlyTarget())
    assert [r.outcome for r in result.assertion_results] == ["not_observable", "pass", "pass"] and result.passed
    assert result.target == "text-only" and result.turns[0].reply == "Your loan is renewed."


class _ReportingTarget:
    """A target that reports its tool calls the way the llm-agent host does (turn, name, ...)."""

    agent_id = "reporting"

    def __init__(self) -> None:
        from adat.targets.hosting import HostedToolCall

        self._calls = [HostedToolCall(turn=0, step=0, name="renew_loan", arguments="{}", output="{}", error=False)]

    def reset(self) -> str:
        return "s"

    def invoke(self, session_id: str, user_message: str) -> str:
        return "I renewed it."

    def tool_calls(self, session_id: str):
        return list(self._calls)


def test_a_target_reporting_tool_calls_gets_tool_assertions_judged(tmp_path: Path) -> None:
    cfg, client, _ = _client(tmp_path, [])
    test = _test(assertions=[SpecAssertion(kind="auth_gate", clause="L2_MEMBER_FIRST", tools=["check_member", "renew_loan"]),
                             SpecAssertion(kind="decision_in", clause="R5_RENEW", values=["LOAN_RENEWED"]),
                             SpecAssertion(kind="text_contains_any", clause="R5_RENEW", values=["renewed"])])
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, test, run_id="r1",
                           target=_ReportingTarget())
    # a plain-text reply has no payload: not observable for a target without respond; the gate is judged
    assert [r.outcome for r in result.assertion_results] == ["fail", "not_observable", "pass"]
    assert not result.passed


class _ReplyReportingTarget:
    """A target that reports its tool calls with each reply (an AgentReply), not by a side method."""

    agent_id = "reply-reporting"

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def reset(self) -> str:
        return "s"

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        return AgentReply(text="I renewed it.", tool_calls=[AgentToolCall.make(name, {}, {"ok": True}, order=i)
                                                             for i, name in enumerate(self.calls)])


@pytest.mark.parametrize(("calls", "outcome"), [(["check_member", "renew_loan"], "pass"), (["renew_loan"], "fail")])
def test_tool_calls_reported_with_the_reply_are_judged(tmp_path: Path, calls: list[str], outcome: str) -> None:
    cfg, client, _ = _client(tmp_path, [])
    test = _test(assertions=[SpecAssertion(kind="auth_gate", clause="L2_MEMBER_FIRST", tools=["check_member", "renew_loan"])])
    result = run_spec_test(cfg, client, parse_spec(library_spec()), ARTIFACT, test, run_id="r1",
                           target=_ReplyReportingTarget(calls))
    assert [r.outcome for r in result.assertion_results] == [outcome]
    assert [c.name for c in result.turns[0].tool_calls or []] == calls
