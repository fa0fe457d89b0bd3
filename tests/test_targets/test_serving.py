"""serve_agent: the default http contract, its error statuses, per-session locking, CLI helpers."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from adat.config import HttpTarget as HttpTargetConfig
from adat.config import LLMAgentTarget, RunConfig
from adat.errors import TargetError, UserError
from adat.serving import BackgroundServer, build_served_agent, serve_agent
from adat.targets.http import HttpTarget

from .sample_agents import EchoAgent


class SlowAgent(EchoAgent):
    """Echo agent that takes a while and counts how many calls overlap, per session and overall."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.active: dict[str, int] = {}
        self.max_per_session = 0
        self.max_overall = 0

    def invoke(self, session_id: str, user_message: str) -> str:
        with self._lock:
            self.active[session_id] = self.active.get(session_id, 0) + 1
            self.max_per_session = max(self.max_per_session, self.active[session_id])
            self.max_overall = max(self.max_overall, sum(self.active.values()))
        time.sleep(0.15)
        with self._lock:
            self.active[session_id] -= 1
        return super().invoke(session_id, user_message)


@pytest.fixture
def echo_server() -> Iterator[tuple[EchoAgent, BackgroundServer, str]]:
    agent = EchoAgent(prefix="agent: ")
    server, url = serve_agent(agent)
    try:
        yield agent, server, url
    finally:
        server.stop()


def _post(url: str, data: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_default_contract_through_the_http_target(echo_server: tuple[EchoAgent, BackgroundServer, str]) -> None:
    agent, _server, url = echo_server
    target = HttpTarget(HttpTargetConfig(base_url=url))
    target.check()
    session = target.reset()
    assert target.invoke(session, "hello").text == "agent: hello"
    assert target.invoke(session, "again").text == "agent: again"
    assert agent.seen[session] == ["hello", "again"]
    with urllib.request.urlopen(url + "/health", timeout=5) as response:
        assert json.loads(response.read()) == {"status": "ok", "agent_id": "echo"}


def test_error_statuses(echo_server: tuple[EchoAgent, BackgroundServer, str]) -> None:
    _agent, _server, url = echo_server
    status, body = _post(url + "/sessions", b"")
    session = body["session_id"]
    assert status == 200
    assert _post(f"{url}/sessions/nope/messages", b'{"message": "hi"}')[0] == 404
    assert _post(f"{url}/sessions/{session}/messages", b"not json")[0] == 400
    assert _post(f"{url}/sessions/{session}/messages", b'{"text": "hi"}')[0] == 400
    assert _post(f"{url}/sessions/{session}/messages", b'["hi"]')[0] == 400
    assert _post(f"{url}/elsewhere", b"{}")[0] == 404
    status, body = _post(f"{url}/sessions/{session}/messages", b'{"message": "crash"}')
    assert status == 500 and "ZeroDivisionError: agent divided by zero" in body["error"]
    assert _post(f"{url}/sessions/{session}/messages", b'{"message": "fine"}') == (200, {"reply": "agent: fine", "tool_calls": []})


def test_agent_failure_is_a_target_error_and_the_session_goes_on(
        echo_server: tuple[EchoAgent, BackgroundServer, str]) -> None:
    _agent, _server, url = echo_server
    target = HttpTarget(HttpTargetConfig(base_url=url))
    session = target.reset()
    with pytest.raises(TargetError, match="HTTP 500"):
        target.invoke(session, "crash")
    with pytest.raises(TargetError, match="HTTP 404.*unknown session"):
        target.invoke("missing", "hi")
    assert target.invoke(session, "ok").text == "agent: ok"


def test_one_session_is_serialised_while_sessions_run_in_parallel() -> None:
    agent = SlowAgent()
    server, url = serve_agent(agent)
    try:
        target = HttpTarget(HttpTargetConfig(base_url=url))
        first, second = target.reset(), target.reset()
        jobs = [(first, f"a{i}") for i in range(3)] + [(second, f"b{i}") for i in range(3)]
        threads = [threading.Thread(target=target.invoke, args=job) for job in jobs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        server.stop()
    assert agent.max_per_session == 1
    assert agent.max_overall == 2
    assert sorted(agent.seen[first]) == ["a0", "a1", "a2"]


def test_port_in_use_is_a_user_error(echo_server: tuple[EchoAgent, BackgroundServer, str]) -> None:
    _agent, server, _url = echo_server
    port = server.server_address[1]
    with pytest.raises(UserError, match=r"--port: cannot listen on 127\.0\.0\.1:\d+.*fix: choose a free port"):
        serve_agent(EchoAgent(), port=port)


def test_stop_frees_the_port() -> None:
    server, _url = serve_agent(EchoAgent())
    port = server.server_address[1]
    server.stop()
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))


def test_served_agent_kinds_are_checked() -> None:
    with pytest.raises(UserError, match=r"target: the run config's target is 'reference', not llm-agent"):
        build_served_agent("llm-agent", None, RunConfig())
    with pytest.raises(UserError, match="unknown agent kind 'robot'"):
        build_served_agent("robot", None, RunConfig(target=LLMAgentTarget(model="fake/x")))
