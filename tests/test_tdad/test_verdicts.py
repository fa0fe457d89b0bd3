"""A spec test's verdict: *not observable* is never *pass* (issue #27 item 3).

A test none of whose assertions was observed is not observable as a whole; one whose only observed
passes are of the kinds that hold on silence (``no_pii``, ``text_contains_none``, ...) is not a
pass either; observed passes of the other kinds make a pass even when some assertions went unseen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adat.config import RoleModels, RunConfig
from adat.llm.client import LLMClient
from adat.spec_records import AssertionOutcome, SpecAssertion, SpecTest, SpecTurn
from adat.tdad.artifact import PromptArtifact
from adat.tdad.runner import run_spec_test
from adat.tdad.spec_loader import parse_spec
from adat.trace_assertions import HOLD_ON_SILENCE, verdict_of
from tests.support.tdad_spec import LIBRARY_SEED_PROMPT, library_spec

SAID = [SpecTurn(user="hi", reply="Hello, how can I help?")]
SILENT = [SpecTurn(user="hi", reply="", tool_calls=[])]


def _r(kind: str, outcome: str) -> AssertionOutcome:
    return AssertionOutcome(index=0, kind=kind, clause="C", outcome=outcome)  # type: ignore[arg-type]


@pytest.mark.parametrize(("results", "turns", "error", "expected"), [
    ([], SAID, None, "not_observable"),                                           # nothing to observe
    ([_r("tool_called", "not_observable"), _r("decision_in", "not_observable")], SAID, None, "not_observable"),
    ([_r("tool_called", "not_observable"), _r("no_pii", "pass")], SAID, None, "not_observable"),  # the case
    ([_r("tool_called", "not_observable"), _r("decision_in", "pass")], SAID, None, "pass"),      # passes on what was seen
    ([_r("decision_in", "pass"), _r("no_pii", "fail")], SAID, None, "fail"),
    ([_r("decision_in", "pass")], SAID, "timeout", "fail"),
    ([_r("no_pii", "pass"), _r("tool_not_called", "pass")], SAID, None, "pass"),   # written only with such kinds
    ([_r("no_pii", "pass"), _r("tool_not_called", "pass")], SILENT, None, "not_observable"),  # ... on silence
    ([_r("respond_once", "pass"), _r("no_pii", "pass")], SAID, None, "pass"),     # the built agent answered
])
def test_verdict_rule(results: list[AssertionOutcome], turns: list[SpecTurn], error: str | None, expected: str) -> None:
    assert verdict_of(results, turns, error) == expected


def test_the_silence_kinds_really_pass_on_an_empty_trace() -> None:
    from adat.trace_assertions import evaluate

    silent = [SpecTurn(user="hi", reply="", tool_calls=[])]
    args = {"no_pii": {"values": ["555-0199"]}, "text_contains_none": {"values": ["sorry"]},
            "tool_not_called": {"tools": ["cancel"]}, "auth_gate": {"tools": ["verify", "cancel"]},
            "confirm_before": {"tools": ["cancel"], "turn": 0}, "args_confirmed": {"tools": ["cancel"]}}
    for kind in HOLD_ON_SILENCE:
        got = evaluate(SpecAssertion(kind=kind, clause="C", **args[kind]), silent)  # type: ignore[arg-type]
        assert got.outcome == "pass", (kind, got)


class _UnrelatedTextAgent:
    """An agent that has nothing to do with the spec: plain text, no tool calls reported."""

    agent_id = "unrelated"

    def reset(self) -> str:
        return "s"

    def invoke(self, session_id: str, user_message: str) -> str:
        return "Thanks for contacting RetailCo! I can help with orders and returns."


def test_an_unrelated_agent_does_not_pass_on_no_pii_alone(tmp_path: Path) -> None:
    cfg = RunConfig(data_dir=str(tmp_path / "data"), models=RoleModels(spec_agent="offline/heuristic"))
    client = LLMClient(cfg, "r1")
    test = SpecTest(test_id="t", run_id="r1", spec_id="library_v1", spec_version="1.0", family="MFT",
                    split="visible", leaf_id="END_LOAN_RENEWED", clauses=["R5_RENEW"], user_turns=["renew my loan"],
                    assertions=[SpecAssertion(kind="tool_called", clause="R5_RENEW", tools=["renew_loan"]),
                                SpecAssertion(kind="decision_in", clause="R5_RENEW", values=["LOAN_RENEWED"]),
                                SpecAssertion(kind="no_pii", clause="L1_PRIVATE", values=["555-0199"])])
    artifact = PromptArtifact(system_prompt=LIBRARY_SEED_PROMPT, tool_descriptions={})
    result = run_spec_test(cfg, client, parse_spec(library_spec()), artifact, test, run_id="r1",
                           target=_UnrelatedTextAgent())
    assert [r.outcome for r in result.assertion_results] == ["not_observable", "not_observable", "pass"]
    assert not result.passed and result.not_observable
    assert json.loads(result.model_dump_json())["not_observable"] is True


def test_spec_suite_runner_uses_the_configured_target_only_when_asked(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from adat.config import PythonTarget, SpecSuiteConfig
    from adat.tdad.spec_suite_steps import _runner

    cfg = RunConfig(data_dir=str(tmp_path / "data"), models=RoleModels(spec_agent="offline/heuristic"),
                    target=PythonTarget(factory="tests.test_targets.sample_agents:make_echo"),
                    spec_suite=SpecSuiteConfig(use_target=True))
    ctx = SimpleNamespace(client=LLMClient(cfg, "r1"), run_id="r1")
    test = SpecTest(test_id="t", run_id="r1", spec_id="library_v1", spec_version="1.0", family="MFT",
                    split="visible", leaf_id="END_LOAN_RENEWED", clauses=["R5_RENEW"], user_turns=["renew my loan"],
                    assertions=[SpecAssertion(kind="tool_called", clause="R5_RENEW", tools=["renew_loan"])])
    artifact = PromptArtifact(system_prompt=LIBRARY_SEED_PROMPT, tool_descriptions={})
    got = _runner(cfg, ctx, parse_spec(library_spec()))(artifact, test, 0)  # type: ignore[arg-type]
    assert got.target == "echo" and got.turns[0].reply == "renew my loan" and got.not_observable
    built = cfg.model_copy(update={"spec_suite": SpecSuiteConfig()})
    got = _runner(built, ctx, parse_spec(library_spec()))(artifact, test, 0)  # type: ignore[arg-type]
    assert got.target != "echo"
