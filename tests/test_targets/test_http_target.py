"""HttpTarget against a scripted local agent server: contract, JSON paths, failures as TargetError."""

from __future__ import annotations

import time

import pytest

from adat.config import HttpTarget as HttpTargetConfig
from adat.errors import TargetError, UserError
from adat.prefect_server import free_port
from adat.targets.http import HttpTarget, lookup_json_path

from .conftest import ScriptedServer


def _target(url: str, **overrides: object) -> HttpTarget:
    return HttpTarget(HttpTargetConfig.model_validate({"base_url": url, "timeout_s": 5.0, **overrides}))


def test_default_contract_round_trip(scripted_server: ScriptedServer) -> None:
    target = _target(scripted_server.url + "/")
    session = target.reset()
    assert session == "s1"
    assert target.invoke(session, "hello there").text == "echo: hello there"
    method, path, _headers, body = scripted_server.requests[-1]
    assert (method, path, body) == ("POST", "/sessions/s1/messages", {"message": "hello there"})


def test_500_is_a_target_error_and_the_run_goes_on(scripted_server: ScriptedServer) -> None:
    target = _target(scripted_server.url)
    session = target.reset()
    with pytest.raises(TargetError) as info:
        target.invoke(session, "boom")
    message = str(info.value)
    assert "HTTP 500" in message and f"{scripted_server.url}/sessions/{session}/messages" in message
    assert "agent crashed" in message and "\n" not in message
    fresh = target.reset()
    assert fresh != session and target.invoke(fresh, "next").text == "echo: next"


def test_hang_past_the_timeout_fails_fast_and_the_run_goes_on(scripted_server: ScriptedServer) -> None:
    target = _target(scripted_server.url, timeout_s=0.5)
    session = target.reset()
    start = time.monotonic()
    with pytest.raises(TargetError, match="timeout") as info:
        target.invoke(session, "hang")
    assert time.monotonic() - start < 3.0
    assert "/messages" in str(info.value)
    fresh = target.reset()
    assert target.invoke(fresh, "still there?").text == "echo: still there?"


@pytest.mark.parametrize(("message", "expected"), [
    ("notjson", "not JSON"),
    ("noreply", "'reply' at JSON path 'reply' (target.reply_path)"),
])
def test_bad_bodies_are_target_errors(scripted_server: ScriptedServer, message: str, expected: str) -> None:
    target = _target(scripted_server.url)
    with pytest.raises(TargetError, match="POST http://127.0.0.1") as info:
        target.invoke(target.reset(), message)
    assert expected in str(info.value)


def test_custom_paths_and_json_paths(scripted_server: ScriptedServer) -> None:
    target = _target(scripted_server.url, reset_path="/api/v1/conversations",
                     invoke_path="/api/v1/conversations/{session_id}/turns", session_id_path="data.conversation.id",
                     message_field="input", reply_path="output.choices.0.text")
    session = target.reset()
    assert session == "1"  # an integer id becomes a string
    assert target.invoke(session, "hi").text == "custom: hi"
    assert scripted_server.requests[-1][1:4:2] == ("/api/v1/conversations/1/turns", {"input": "hi"})


def test_wrong_session_id_path_names_the_field(scripted_server: ScriptedServer) -> None:
    target = _target(scripted_server.url, session_id_path="id")
    with pytest.raises(TargetError, match=r"target\.session_id_path"):
        target.reset()


def test_headers_expand_environment_references(scripted_server: ScriptedServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADAT_TEST_AGENT_TOKEN", "tok-123")
    target = _target(scripted_server.url, headers={"Authorization": "Bearer ${ADAT_TEST_AGENT_TOKEN}"})
    target.reset()
    assert scripted_server.requests[-1][2]["Authorization"] == "Bearer tok-123"


def test_missing_header_variable_is_a_user_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.delenv("ADAT_TEST_MISSING_VAR", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env to fall back on
    with pytest.raises(UserError, match=r"target\.headers\.X-Key.*ADAT_TEST_MISSING_VAR"):
        _target("http://127.0.0.1:1", headers={"X-Key": "${ADAT_TEST_MISSING_VAR}"})


def test_check_passes_on_a_live_server_and_names_base_url_when_unreachable(scripted_server: ScriptedServer) -> None:
    _target(scripted_server.url).check()  # the server answers GET / with an error status: reachable
    dead = _target(f"http://127.0.0.1:{free_port()}", timeout_s=1.0)
    with pytest.raises(UserError, match=r"target\.base_url: cannot reach .*fix: start the agent server"):
        dead.check()
    with pytest.raises(UserError, match=r"target\.base_url: not an http"):
        _target("127.0.0.1:8000").check()


def test_refused_connection_during_a_run_is_a_target_error() -> None:
    target = _target(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(TargetError, match="connection failed"):
        target.reset()


def test_lookup_json_path() -> None:
    doc = {"a": {"b": [{"c": 1}, {"c": 2}]}}
    assert lookup_json_path(doc, "a.b.1.c") == 2
    assert lookup_json_path(doc, "") is doc
    with pytest.raises(KeyError):
        lookup_json_path(doc, "a.b.5.c")


def test_tool_calls_are_read_at_the_configured_path_in_both_shapes() -> None:
    target = _target("http://127.0.0.1:9", tool_calls_path="out.calls")
    doc = {"out": {"calls": [
        {"name": "find_user", "arguments": {"email": "a@b.c"}, "result": "u1"},
        {"function": {"name": "cancel", "arguments": '{"order_id": "#1"}'}, "output": None, "error": "not pending"},
        {"name": "raw", "arguments": "not json", "order": 7}]}}
    calls = target._tool_calls(doc, "u")
    assert [(c.name, c.arguments, c.result, c.error, c.order) for c in calls] == [
        ("find_user", {"email": "a@b.c"}, "u1", None, 0), ("cancel", {"order_id": "#1"}, None, "not pending", 1),
        ("raw", {"_raw": "not json"}, None, None, 7)]
    assert target._tool_calls({"reply": "text only"}, "u") == []  # no path: a text-only agent
    assert _target("http://127.0.0.1:9", tool_calls_path=None)._tool_calls(doc, "u") == []


@pytest.mark.parametrize(("value", "says"), [("x", "str, not a list"), ([{"arguments": {}}], "no string 'name'"),
                                             ([{"name": "f", "arguments": [1]}], "arguments are list")])
def test_malformed_tool_calls_are_one_line_target_errors(value: object, says: str) -> None:
    target = _target("http://127.0.0.1:9")
    with pytest.raises(TargetError, match="target.tool_calls_path") as info:
        target._tool_calls({"reply": "r", "tool_calls": value}, "http://x/m")
    assert says in str(info.value) and "\n" not in str(info.value)
