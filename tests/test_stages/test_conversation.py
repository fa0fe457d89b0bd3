"""The one conversation loop (issue 26): discovery, execution, a TDAD spec test and the auditor's
replay all talk to their agent through :func:`adat.conversation.converse`, shown by a spy on it;
and the loop's own rules (scripted users, the turn limit, target failures)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from adat import conversation
from adat.config import RoleModels, RunConfig
from adat.conversation import ScriptedUser, Stop, converse
from adat.errors import TargetError
from adat.evaluation.replay import Replayer
from adat.llm.client import LLMClient
from adat.llm.providers.provider_registry import default_registry
from adat.llm.types import LLMResponse, ToolCall
from adat.spec_records import SpecAssertion, SpecTest, ToolFixture
from adat.stages.discovery import discover
from adat.stages.execution import execute_test
from adat.targets.base import AgentReply, AgentToolCall
from adat.tdad.artifact import PromptArtifact
from adat.tdad.runner import run_spec_test
from adat.tdad.spec_loader import parse_spec
from tests.support.tdad_spec import LIBRARY_SEED_PROMPT, library_spec
from tests.test_stages.conftest import RUN, Roles, ScriptedTarget, make_test


@pytest.fixture()
def spy(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts calls of the loop by the module that made them."""
    import inspect

    calls: Counter[str] = Counter()
    real = conversation.converse

    def spying(*args: Any, **kwargs: Any) -> conversation.Conversation:
        calls[inspect.stack()[1].frame.f_globals["__name__"]] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(conversation, "converse", spying)
    return calls


def test_discovery_execution_spec_tests_and_replays_all_go_through_the_one_loop(
        spy: Counter[str], roles: Roles, tmp_path: Path) -> None:
    roles.cfg.discovery.sessions = 2
    roles.script("planner", [{"objective": "o", "strategy": "s", "rationale": ""}] * 2)
    roles.script("driver", [{"status": "continue", "message": "hi"}, {"status": "met", "message": ""}] * 2)
    traces = discover(roles.cfg, roles.client(), ScriptedTarget(default="Hello."), RUN)
    assert [t.ended_by for t in traces] == ["met", "met"] and spy["adat.stages.discovery"] == 2

    execution = execute_test(ScriptedTarget(default="Done."), make_test("t1", ["a", "b"]), RUN)
    assert execution.ended_by == "hints_done" and spy["adat.stages.execution"] == 1

    replay = Replayer.for_database(None).replay(["Hi, I want to cancel an order."])
    assert len(replay.replies) == 1 and spy["adat.evaluation.replay"] == 1

    cfg = RunConfig(data_dir=str(tmp_path), models=RoleModels(spec_agent="fake/agent"))
    registry = default_registry()
    respond = {"node_id": "END_LOAN_RENEWED", "decision": "LOAN_RENEWED", "user_message": "Renewed."}
    registry.register_fake("agent", [LLMResponse(tool_calls=[ToolCall(id="c0", name="respond",
                                                                       arguments=json.dumps(respond))])])
    client = LLMClient(cfg, "r1", registry=registry, cache_dir=tmp_path / "cache")
    test = SpecTest(test_id="t1", run_id="r1", spec_id="librarydesk_v1", spec_version="1.0", family="MFT",
                    split="visible", leaf_id="END_LOAN_RENEWED", user_turns=["renew L1"],
                    fixtures=[ToolFixture(tool="renew_loan", output_json='{"status": "renewed"}')],
                    assertions=[SpecAssertion(kind="decision_in", clause="R5_RENEW", values=["LOAN_RENEWED"])])
    artifact = PromptArtifact(system_prompt=LIBRARY_SEED_PROMPT, tool_descriptions={"renew_loan": "Renew one loan."})
    result = run_spec_test(cfg, client, parse_spec(library_spec()), artifact, test, run_id="r1")
    assert result.turns and spy["adat.tdad.runner"] == 1


class _Flaky:
    agent_id = "flaky"

    def __init__(self, fail_on: int) -> None:
        self.fail_on, self.n = fail_on, 0

    def reset(self) -> str:
        return "s1"

    def invoke(self, session_id: str, user_message: str) -> str:
        self.n += 1
        if self.n == self.fail_on:
            raise TargetError("connection reset")
        return f"reply {self.n}"


def test_scripted_user_turn_limit_and_target_failure() -> None:
    done = converse(_Flaky(0), ScriptedUser(["a", "b"]), turn_limit=2)
    assert done.ended_by == "hints_done" and done.replies() == ["reply 1", "reply 2"] and done.error is None
    cut = converse(_Flaky(0), ScriptedUser(["a", "b", "c"]), turn_limit=2)
    assert cut.ended_by == "turn_limit" and [t.text for t in cut.turns if t.role == "user"] == ["a", "b"]
    failed = converse(_Flaky(2), ScriptedUser(["a", "b", "c"]), turn_limit=5)
    assert failed.ended_by == "error" and failed.error == "connection reset"
    assert [t.role for t in failed.turns] == ["user", "agent", "user"]  # the message the target failed on stays
    seen: list[tuple[int, str, str]] = []
    converse(_Flaky(0), ScriptedUser(["x", "y"]), turn_limit=5, observe=lambda s, i, u, r: seen.append((i, u, r.text)))
    assert seen == [(0, "x", "reply 1"), (1, "y", "reply 2")]
    assert all(t.tool_calls == [] for t in done.turns)  # a text-only target reports no tool calls


class _Tooled:
    agent_id = "tooled"

    def reset(self) -> str:
        return "s1"

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        calls = [AgentToolCall.make("find_user", {"email": "a@b.c"}, {"user_id": "u1"}),
                 AgentToolCall.make("cancel_order", {"order_id": "#1"}, error="not pending", order=1)]
        return AgentReply(text=f"done: {user_message}", tool_calls=calls if user_message == "cancel" else [])


def test_each_agent_turn_keeps_the_tool_calls_its_reply_reported() -> None:
    conv = converse(_Tooled(), ScriptedUser(["hi", "cancel"]), turn_limit=2)
    agent_turns = [t for t in conv.turns if t.role == "agent"]
    assert [t.text for t in agent_turns] == ["done: hi", "done: cancel"]
    assert agent_turns[0].tool_calls == []
    first, second = agent_turns[1].tool_calls
    assert (first.name, first.arguments, first.result, first.error) == ("find_user", {"email": "a@b.c"},
                                                                        {"user_id": "u1"}, None)
    assert (second.name, second.result, second.error, second.order) == ("cancel_order", None, "not pending", 1)
    assert all(t.tool_calls == [] for t in conv.turns if t.role == "user")


def test_a_user_that_stops_ends_the_conversation_with_its_reason() -> None:
    class Once:
        def next_message(self, turns: Any, turn_no: int, turn_limit: int) -> str | Stop:
            return "hello" if turn_no == 1 else Stop("met")

        def at_limit(self, turn_limit: int) -> str:
            return "turn_limit"

    conv = converse(_Flaky(0), Once(), turn_limit=5)
    assert conv.ended_by == "met" and conv.replies() == ["reply 1"]
