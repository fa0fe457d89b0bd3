"""The llm-agent host with a fake provider scripting tool calls, bad calls included."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import LLMAgentTarget, RunConfig
from adat.errors import TargetError, UserError
from adat.targets import build_target
from adat_reference.llm_agent import PREAMBLE, STEP_CAP_REPLY, LLMAgent
from adat_reference.retail import RetailDB, RetailTools, default_db_path, default_policy_path

from .llm_agent_script import (
    MODEL,
    CancelCase,
    cancel_script,
    make_agent,
    make_client,
    pending_order_case,
    tool_call,
)


@pytest.fixture(scope="module")
def case() -> CancelCase:
    return pending_order_case()


def _tool_message(request_messages: list[dict], call_id: str) -> str:
    [message] = [m for m in request_messages if m["role"] == "tool" and m["tool_call_id"] == call_id]
    return str(message["content"])


def test_tool_calls_bad_calls_and_a_confirmed_write(tmp_path: Path, case: CancelCase) -> None:
    agent, fake, client = make_agent(tmp_path, cancel_script(case))
    session = agent.reset()
    first = agent.invoke(session, f"Hi, please cancel my order {case.order_id}. My email is {case.email}.").text
    assert first.startswith(f"Order {case.order_id} is pending")
    assert agent.session_db(session).orders[case.order_id].status == "pending"  # nothing written before "yes"

    # Each bad call's error went back to the model in the very next request, as a tool message.
    assert len(fake.requests) == 6
    assert _tool_message(fake.requests[1].messages, "c1") == case.user_id
    assert case.order_id in _tool_message(fake.requests[2].messages, "c2")
    unknown = _tool_message(fake.requests[3].messages, "c3")
    assert unknown.startswith("Error: ") and "delete_all_orders" in unknown and "cancel_pending_order" in unknown
    bad_json = _tool_message(fake.requests[4].messages, "c4")
    assert bad_json.startswith("Error: the arguments of cancel_pending_order are not valid JSON")
    bad_args = _tool_message(fake.requests[5].messages, "c5")
    assert bad_args.startswith("Error: ") and "order_id" in bad_args

    second = agent.invoke(session, "Yes, please.").text
    assert second == f"Done: order {case.order_id} is cancelled."
    assert agent.session_db(session).orders[case.order_id].status == "cancelled"

    calls = agent.tool_calls(session)
    assert [(c.turn, c.name, c.error) for c in calls] == [
        (0, "find_user_id_by_email", False), (0, "get_order_details", False), (0, "delete_all_orders", True),
        (0, "cancel_pending_order", True), (0, "get_order_details", True), (1, "cancel_pending_order", False)]
    assert agent.step_cap_hits(session) == []

    # The model saw the whole conversation in order, with OpenAI-format tool-call messages.
    last = fake.requests[-1]
    assert last.role == "agent" and last.model == "agent"
    assert [m["role"] for m in last.messages][:4] == ["system", "user", "assistant", "tool"]
    assert last.messages[2]["tool_calls"][0]["function"] == {
        "name": "find_user_id_by_email", "arguments": f'{{"email": "{case.email}"}}'}
    assert [m["content"] for m in last.messages if m["role"] == "user"] == [
        f"Hi, please cancel my order {case.order_id}. My email is {case.email}.", "Yes, please."]
    assert len(client.drain_calls()) == 8  # one LLMCall row per model call


def test_system_prompt_is_preamble_and_policy_and_tools_are_the_retail_tools(tmp_path: Path) -> None:
    agent, fake, _client = make_agent(tmp_path, ["Hello! How can I help?"])
    agent.invoke(agent.reset(), "hi")
    [request] = fake.requests
    system = request.messages[0]
    assert system["role"] == "system"
    assert system["content"].startswith(PREAMBLE)
    assert default_policy_path().read_text(encoding="utf-8").strip() in system["content"]
    tools = RetailTools(RetailDB.load(default_db_path())).schemas()
    assert request.tools == tools


def test_sessions_have_separate_databases_and_histories(tmp_path: Path, case: CancelCase) -> None:
    agent, fake, _client = make_agent(tmp_path, cancel_script(case))
    first = agent.reset()
    agent.invoke(first, "cancel please")
    agent.invoke(first, "yes")
    second = agent.reset()
    assert second != first
    assert agent.session_db(first).orders[case.order_id].status == "cancelled"
    assert agent.session_db(second).orders[case.order_id].status == "pending"
    assert agent.tool_calls(second) == []
    assert [m["role"] for m in agent.messages(second)] == ["system"]


def test_step_cap_ends_the_turn_with_an_apology_and_is_recorded(tmp_path: Path) -> None:
    agent, fake, _client = make_agent(tmp_path, lambda request: tool_call("k", "calculate", {"expression": "1+1"}),
                                      max_steps=3)
    session = agent.reset()
    assert agent.invoke(session, "what is 1+1?").text == STEP_CAP_REPLY
    assert len(fake.requests) == 3
    assert agent.step_cap_hits(session) == [0]
    assert [c.output for c in agent.tool_calls(session)] == ["2.0"] * 3
    assert agent.invoke(session, "and again?").text == STEP_CAP_REPLY
    assert agent.step_cap_hits(session) == [0, 1]
    assert agent.messages(session)[-1] == {"role": "assistant", "content": STEP_CAP_REPLY}


def test_a_failed_model_call_is_a_target_error(tmp_path: Path) -> None:
    agent, _fake, client = make_agent(tmp_path, [])  # the script runs out: LLMError
    session = agent.reset()
    with pytest.raises(TargetError, match="model call failed: fake provider 'agent' ran out"):
        agent.invoke(session, "hello")
    [row] = client.drain_calls()
    assert row.error is not None


def test_unknown_session_and_missing_policy(tmp_path: Path) -> None:
    agent, _fake, _client = make_agent(tmp_path, [])
    with pytest.raises(TargetError, match="unknown session 'nope'"):
        agent.invoke("nope", "hi")
    client, _ = make_client(tmp_path, [])
    with pytest.raises(UserError, match=r"target\.policy"):
        LLMAgent(client, model=MODEL, policy=str(tmp_path / "missing.md"))


def test_build_target_makes_an_llm_agent(tmp_path: Path) -> None:
    client, _fake = make_client(tmp_path, ["hi there"])
    cfg = RunConfig(target=LLMAgentTarget(model=MODEL, max_steps=4))
    agent = build_target(cfg.target, cfg, client=client)
    assert isinstance(agent, LLMAgent) and agent.max_steps == 4 and agent.agent_id == "llm-agent:fake/agent"
    assert agent.invoke(agent.reset(), "hello").text == "hi there"


def test_every_fault_rewrites_its_policy_passage(tmp_path: Path) -> None:
    from adat_reference.agent import list_faults, load_fault

    fault_ids = list_faults()
    assert len(fault_ids) >= 8
    client, _fake = make_client(tmp_path, [])
    original = LLMAgent(client, model=MODEL).policy_text
    for fault_id in fault_ids:
        fault = load_fault(fault_id)
        faulty = LLMAgent(client, model=MODEL, fault=fault_id)
        assert faulty.agent_id == f"llm-agent:fake/agent+{fault_id}"
        assert fault.passage_before in original
        assert faulty.policy_text == original.replace(fault.passage_before, fault.passage_after)
        assert faulty.policy_text != original


def test_faulty_system_prompt_reaches_the_model(tmp_path: Path) -> None:
    from adat_reference.agent import load_fault

    fault = load_fault("cancel_any_reason")
    agent, fake, _client = make_agent(tmp_path, ["ok"], fault="cancel_any_reason")
    agent.invoke(agent.reset(), "hi")
    system = fake.requests[0].messages[0]["content"]
    assert fault.passage_after.strip() in system and fault.passage_before not in system


def test_unknown_fault_is_a_user_error(tmp_path: Path) -> None:
    client, _fake = make_client(tmp_path, [])
    with pytest.raises(UserError, match="unknown fault 'no_such_fault'.*cancel_any_reason"):
        LLMAgent(client, model=MODEL, fault="no_such_fault")
