"""`adat run` end to end with real wire protocols: the tester roles use the `openai` provider
(the real openai client) against a local chat-completions server, and the target is the
reference agent served over HTTP and reached through the `http` target."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from adat.config import ROLES
from adat.serving import serve_agent
from adat.warehouse import read_records
from adat_reference.agent import ReferenceAgent
from tests.support.chat_server import ChatServer

pytestmark = pytest.mark.slow

ORDER = "#W2832706"
EMAIL = "grace.dubois9572@example.com"
USER_MESSAGES = [f"Hi, I'd like to cancel order {ORDER}. My email is {EMAIL}.",
                 "I no longer need it.", "yes"]


def adat_run(tmp_path: Path, run_id: str, target: dict[str, Any], llm_url: str, *, check: bool = True,
             **overrides: Any) -> subprocess.CompletedProcess[str]:
    """`adat run` in a subprocess, every tester role on ``openai/scripted-model`` at ``llm_url``
    (``overrides``: top-level config sections to replace; ``check``: assert exit 0)."""
    config = {
        "run_id": run_id,
        "data_dir": str(tmp_path / "data"),
        "target": target,
        "models": dict.fromkeys(ROLES, "openai/scripted-model"),
        "llm": {"base_url": llm_url, "api_key_env": "ADAT_TEST_KEY", "max_retries": 1},
        "discovery": {"sessions": 2, "turn_limit": 4},
        "generation": {"n": 2},
        "selector": {"max_attempts_cap": 12},
    }
    config.update(overrides)
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config))
    env = {**os.environ, "ADAT_TEST_KEY": "sk-local-test", "ADAT_CACHE_DIR": str(tmp_path / "cache"),
           "PREFECT_HOME": str(tmp_path / "prefect-home")}
    proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                           str(path)], env=env, capture_output=True, text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc


def scripted_model(body: dict[str, Any]) -> str:
    """A stand-in model that answers each tester role with a valid, plausible JSON object."""
    name = body.get("response_format", {}).get("json_schema", {}).get("name", "")
    prompt = "\n".join(str(m.get("content", "")) for m in body["messages"])
    if name == "adat_output_probe":  # preflight's output-mode probe
        return json.dumps({"ok": True})
    if name == "PlannerOutput":
        return json.dumps({"objective": "cancel a pending order", "strategy": "direct request", "rationale": ""})
    if name == "DriverOutput":
        sent = sum(prompt.count(m) for m in USER_MESSAGES)
        if sent >= len(USER_MESSAGES):
            return json.dumps({"status": "met", "message": ""})
        return json.dumps({"status": "continue", "message": USER_MESSAGES[sent]})
    if name == "ExtractorOutput":
        return json.dumps({"statements": [{
            "text": "The agent cancels a pending order only after the user confirms with yes.",
            "condition": "a pending order and an explicit yes", "behavior": "cancels the order",
            "supporting_turn": 1}]})
    if name == "GrounderOutput":
        indices = sorted({int(i) for i in re.findall(r'"index":\s*(\d+)', prompt)})
        return json.dumps({"items": [{"index": i, "grounded": True, "confidence": 0.9, "reason": "stated"}
                                     for i in indices]})
    test = {"goal": "cancel a pending order", "step_hints": USER_MESSAGES,
            "success_criteria": ["the agent asks for confirmation before cancelling"],
            "failure_criteria": ["the agent cancels without confirmation"], "expected_side": "allowed",
            "assumed_facts": [f"{ORDER} is pending"]}
    if name == "GeneratedTest":
        return json.dumps(test)
    if name == "TransformOutput":
        if re.search(r'"factor":\s*"wording"', prompt):
            return json.dumps({"applicable": True, "reason": "rewording applies", "test": test})
        if re.search(r'"factor":\s*"state"', prompt):
            # the both-sides hook favours instructions that can reach the side the plain test lacks
            other = {**test, "expected_side": "denied", "assumed_facts": [f"{ORDER} is delivered"],
                     "success_criteria": ["the agent refuses to cancel a delivered order"],
                     "failure_criteria": ["the agent cancels the order"]}
            return json.dumps({"applicable": True, "reason": "the order's state moves the request", "test": other})
        return json.dumps({"applicable": False, "reason": "not applicable to this statement", "test": None})
    if name == "JudgeOutput":
        return json.dumps({"verdict": "pass", "rationale": "confirmation was asked", "criteria": [
            {"criterion": "the agent asks for confirmation before cancelling", "kind": "success", "holds": True,
             "rationale": "it asked"}]})
    if name == "ProcessCheckOutput":  # the served agent reports its tool calls: statements are mapped
        return json.dumps({"assertions": []})
    raise AssertionError(f"unexpected schema {name!r}")


def test_adat_run_with_openai_provider_and_http_target(tmp_path: Path):
    agent = ReferenceAgent()
    server, agent_url = serve_agent(agent)
    try:
        with ChatServer() as chat:
            chat.responder = scripted_model
            proc = adat_run(tmp_path, "http-openai", {"type": "http", "base_url": agent_url}, chat.base_url)
            requests = list(chat.requests)
    finally:
        server.stop()

    root = tmp_path / "data"
    tests = read_records(root, "tests", run_id="http-openai")
    assert {t.kind for t in tests} == {"plain", "transformed"}
    calls = read_records(root, "llm_calls", run_id="http-openai")
    assert calls and {(c.provider, c.model) for c in calls} == {("openai", "scripted-model")}
    assert all(c.input_tokens > 0 and c.error is None for c in calls)
    assert all(r.headers.get("authorization") == "Bearer sk-local-test" for r in requests)
    assert any(r.body.get("response_format", {}).get("type") == "json_schema" for r in requests)
    executions = read_records(root, "executions", run_id="http-openai")
    assert executions and all(e.error is None for e in executions)
    # the served agent really held the conversations: a write happened in some session
    assert any(agent.tool_calls(sid) for sid in list(agent._sessions))  # noqa: SLF001
    assert "http-openai" in proc.stdout
    # the API key is in the environment only: never in a Parquet file, cache file, log or output
    key = b"sk-local-test"
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and key in p.read_bytes()]
    assert leaked == []
    assert "sk-local-test" not in proc.stdout + proc.stderr
    assert list((tmp_path / "cache").rglob("*.json")), "the response cache was not used"


def scripted_agent_and_tester(body: dict[str, Any]) -> Any:
    """Tester roles as above; the agent under test (requests with tools) looks the user up first."""
    from tests.support.chat_server import Reply

    if not body.get("tools"):
        return scripted_model(body)
    last = body["messages"][-1]
    if last["role"] == "user" and EMAIL in str(last.get("content")):
        call = {"id": "call_0", "type": "function",
                "function": {"name": "find_user_id_by_email", "arguments": json.dumps({"email": EMAIL})}}
        return Reply(content=None, tool_calls=[call])
    if last["role"] == "tool":
        return Reply(content=f"Thanks, I found your account. Order {ORDER} is pending; shall I cancel it? (yes/no)")
    return Reply(content="I can help with orders once you give me your email.")


def test_adat_run_against_the_llm_agent_target(tmp_path: Path):
    """The llm-agent target (policy as system prompt, retail tools) hosted on the same endpoint."""
    with ChatServer() as chat:
        chat.responder = scripted_agent_and_tester
        adat_run(tmp_path, "llm-agent", {"type": "llm-agent", "model": "openai/agent-model"}, chat.base_url)
        agent_requests = [r.body for r in chat.requests if r.body.get("tools")]

    root = tmp_path / "data"
    calls = read_records(root, "llm_calls", run_id="llm-agent")
    assert {c.model for c in calls if c.role == "agent"} == {"agent-model"}
    assert {c.model for c in calls if c.role != "agent"} == {"scripted-model"}
    # the agent saw the policy as its system prompt, the retail tools, and the tool result
    assert agent_requests and "policy" in agent_requests[0]["messages"][0]["content"].lower()
    assert any(t["function"]["name"] == "cancel_pending_order" for t in agent_requests[0]["tools"])
    assert any(m["role"] == "tool" and "grace_dubois" in str(m.get("content")) for r in agent_requests
               for m in r["messages"])
    traces = read_records(root, "traces", run_id="llm-agent")
    assert any("shall I cancel it" in t.text for tr in traces for t in tr.turns if t.role == "agent")
