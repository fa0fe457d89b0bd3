"""adat's OTLP/HTTP receiver: protobuf and JSON bodies, bad bodies, unknown traces, the settle time,
joining by traceparent (python and http targets) and by session attribute, the config section."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan
from opentelemetry.proto.trace.v1.trace_pb2 import Status as ProtoStatus
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from adat import config
from adat.errors import UserError
from adat.serving import BackgroundServer
from adat.targets.http import HttpTarget
from adat.targets.otlp_receiver import OtlpReceiver
from adat.targets.otlp_spans import tool_calls
from adat.targets.python_target import PythonTarget

AGENTS = "tests.test_targets.otlp_agents"


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    """A receiver of the test's own on a free port (not the process-wide shared one)."""
    made = OtlpReceiver("127.0.0.1", 0, "session.id")
    yield made
    made.stop()


def _kv(key: str, value: Any) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=str(value)))


def _span(trace_id: str, name: str, start: int, parent: str = "", error: str | None = None,
          **attributes: Any) -> ProtoSpan:
    span = ProtoSpan(trace_id=bytes.fromhex(trace_id), span_id=secrets.token_bytes(8),
                     parent_span_id=bytes.fromhex(parent), name=name, start_time_unix_nano=start,
                     end_time_unix_nano=start + 10, attributes=[_kv(k, v) for k, v in attributes.items()])
    if error is not None:
        span.status.CopyFrom(ProtoStatus(code=ProtoStatus.STATUS_CODE_ERROR, message=error))
    return span


def _tool(trace_id: str, name: str, start: int, arguments: dict[str, Any], result: Any = None,
          parent: str = "", error: str | None = None, **extra: Any) -> ProtoSpan:
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
             "gen_ai.tool.call.arguments": json.dumps(arguments), **extra}
    if result is not None:
        attrs["gen_ai.tool.call.result"] = json.dumps(result)
    return _span(trace_id, f"execute_tool {name}", start, parent, error, **attrs)


def _body(*spans: ProtoSpan) -> bytes:
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=list(spans))])])
    return request.SerializeToString()


def _post(receiver: OtlpReceiver, body: bytes, content_type: str = "application/x-protobuf") -> httpx.Response:
    return httpx.post(receiver.endpoint, content=body, headers={"Content-Type": content_type}, timeout=10)


def test_protobuf_export_becomes_the_turns_tool_calls_in_start_order(receiver: OtlpReceiver) -> None:
    trace_id, adat_span = secrets.token_hex(16), secrets.token_hex(8)
    turn = receiver.store.open_turn(trace_id, adat_span, "s1")
    response = _post(receiver, _body(
        _tool(trace_id, "cancel_order", 300, {"order_id": "#W1"}, error="order is delivered"),
        _span(trace_id, "chat model", 100, gen_ai_operation="chat"),  # not a tool execution
        _tool(trace_id, "find_user", 200, {"email": "a@b.c"}, {"user_id": "u_1"}),
        _span(trace_id, "invoke_agent", 50, parent=adat_span)))  # the agent's span of the message
    assert response.status_code == 200 and response.headers["content-type"] == "application/x-protobuf"
    started = time.monotonic()
    calls = tool_calls(receiver.store.close_turn(turn, settle_s=10))
    assert time.monotonic() - started < 2  # the agent's span of the message arrived: no full settle wait
    assert [(c.name, c.arguments, c.result, c.error, c.order) for c in calls] == [
        ("find_user", {"email": "a@b.c"}, {"user_id": "u_1"}, None, 0),
        ("cancel_order", {"order_id": "#W1"}, None, "order is delivered", 1)]


@pytest.mark.parametrize(("body", "content_type", "status"), [
    (b"\xff\xff\xff not protobuf", "application/x-protobuf", 400),
    (b"{not json", "application/json", 400),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}', "application/json", 400),
    (b"anything", "text/plain", 415),
])
def test_a_malformed_body_is_rejected(receiver: OtlpReceiver, body: bytes, content_type: str, status: int) -> None:
    assert _post(receiver, body, content_type).status_code == status
    gz = httpx.post(receiver.endpoint, content=b"not gzip", timeout=10,
                    headers={"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"})
    assert gz.status_code == 400


def test_spans_of_an_unknown_trace_are_ignored(receiver: OtlpReceiver) -> None:
    mine, other = secrets.token_hex(16), secrets.token_hex(16)
    turn = receiver.store.open_turn(mine, secrets.token_hex(8), "s1")
    assert _post(receiver, _body(_tool(other, "delete_everything", 1, {}),
                                 _tool(mine, "lookup", 2, {"q": 1}, [1]))).status_code == 200
    calls = tool_calls(receiver.store.close_turn(turn, settle_s=0.3))
    assert [c.name for c in calls] == ["lookup"]
    assert receiver.store.unclaimed == 1  # held for a late claim, never given to a turn


def test_otlp_json_with_hex_ids(receiver: OtlpReceiver) -> None:
    trace_id = secrets.token_hex(16)
    turn = receiver.store.open_turn(trace_id, secrets.token_hex(8), "s1")
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": trace_id, "spanId": secrets.token_hex(8), "name": "execute_tool refund",
        "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000000000100",
        "status": {"code": 2, "message": "card declined"},
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                       {"key": "gen_ai.tool.name", "value": {"stringValue": "refund"}},
                       {"key": "gen_ai.tool.call.arguments", "value": {"kvlistValue": {"values": [
                           {"key": "amount", "value": {"intValue": "12"}}]}}}]}]}]}]}
    response = _post(receiver, json.dumps(doc).encode(), "application/json")
    assert response.status_code == 200 and response.json() == {}
    calls = tool_calls(receiver.store.close_turn(turn, settle_s=0.3))
    assert [(c.name, c.arguments, c.error) for c in calls] == [("refund", {"amount": 12}, "card declined")]


def test_session_attribute_joins_the_agents_own_trace_across_batches() -> None:
    """The agent starts traces of its own; its root span names the session: the trace is the session's."""
    receiver = OtlpReceiver("127.0.0.1", 0, session_attribute="app.session_id")
    own, root = secrets.token_hex(16), secrets.token_hex(8)
    turn = receiver.store.open_turn(secrets.token_hex(16), secrets.token_hex(8), "sess-7")
    _post(receiver, _body(_tool(own, "get_order", 5, {"id": 3}, {"ok": True}, parent=root)))  # child first
    parent = _span(own, "agent turn", 1, **{"app.session_id": "sess-7"})
    parent.span_id = bytes.fromhex(root)
    _post(receiver, _body(parent, _tool(secrets.token_hex(16), "stranger", 6, {}, **{"app.session_id": "other"}),
                          _tool(secrets.token_hex(16), "wrong_attribute", 7, {}, **{"session.id": "sess-7"})))
    started = time.monotonic()
    calls = tool_calls(receiver.store.close_turn(turn, settle_s=5))
    waited = time.monotonic() - started
    receiver.stop()
    assert [c.name for c in calls] == ["get_order"]
    assert waited < 2  # the root of the session's trace arrived: no full settle wait


@pytest.mark.parametrize(("delay_s", "settle_s", "joined"), [(0.6, 4.0, True), (1.5, 0.3, False)])
def test_spans_exported_after_the_reply_join_within_the_settle_time(
        delay_s: float, settle_s: float, joined: bool) -> None:
    cfg = config.OtlpReceiver(enabled=True, port=0, settle_s=settle_s)
    target = PythonTarget(f"{AGENTS}:make_late", {"delay_s": delay_s}, cfg)
    started = time.monotonic()
    reply = target.invoke(target.reset(), "where is my order")
    waited = time.monotonic() - started
    assert reply.text == "done"
    if joined:  # sent 0.6 s after the reply, within the 4 s settle time, and the wait ended when they came
        assert [(c.name, c.arguments) for c in reply.tool_calls] == [("lookup", {"message": "where is my order"})]
        assert delay_s - 0.2 < waited < settle_s
    else:  # sent after the settle time: not this turn's
        assert reply.tool_calls == [] and waited < delay_s
    target.inner.provider.shutdown()


def test_http_target_sends_traceparent_and_joins_the_agents_spans(tmp_path: Path) -> None:
    """An HTTP agent continues adat's trace from the header, as OpenTelemetry's server instrumentation does."""
    cfg = config.OtlpReceiver(enabled=True, host="127.0.0.1", port=0, settle_s=5)
    seen: list[str] = []
    holder: dict[str, Any] = {}

    async def new_session(_request: Request) -> JSONResponse:
        return JSONResponse({"session_id": "h1"})

    async def message(request: Request) -> JSONResponse:
        header = request.headers["traceparent"]
        seen.append(header)
        _, trace_id, parent, _ = header.split("-")
        body = _body(_span(trace_id, "POST /messages", 1, parent=parent),
                     _tool(trace_id, "lookup", 2, {"q": (await request.json())["message"]}, {"n": 1}))
        threading.Timer(0.3, lambda: _post(holder["receiver"], body)).start()  # exported after the reply
        return JSONResponse({"reply": "ok", "tool_calls": [{"name": "claimed_in_reply"}]})

    app = Starlette(routes=[Route("/sessions", new_session, methods=["POST"]),
                            Route("/sessions/{sid}/messages", message, methods=["POST"])])
    agent = BackgroundServer(app, name="traced-http-agent")
    agent.start_in_thread()
    try:
        target = HttpTarget(config.HttpTarget(base_url=agent.url, otlp=cfg, max_retries=0))
        holder["receiver"] = target._otlp.receiver  # type: ignore[union-attr]
        session = target.reset()
        first, second = target.invoke(session, "one"), target.invoke(session, "two")
    finally:
        agent.stop()
    assert len(seen) == 2 and seen[0] != seen[1]
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("lookup", {"q": "one"})]  # the spans win
    assert [(c.name, c.arguments) for c in second.tool_calls] == [("lookup", {"q": "two"})]


def test_real_sdk_agent_in_process_is_a_child_of_adats_trace() -> None:
    """No code of the agent's: the OpenTelemetry context adat attaches makes its spans adat's trace's."""
    target = PythonTarget(f"{AGENTS}:make_traced_reference", {}, config.OtlpReceiver(enabled=True, port=0))
    session = target.reset()
    reply = target.invoke(session, "Hi, cancel order #W2378156, my email is yusuf.rossi@example.com")
    assert [c.name for c in reply.tool_calls] == ["find_user_id_by_email"]
    assert reply.tool_calls[0].arguments == {"email": "yusuf.rossi@example.com"}
    target.inner.provider.shutdown()


@pytest.mark.parametrize(("otlp", "field"), [
    ("{enabled: true, port: 70000}", "target.otlp.port"),
    ("{enabled: true, settle_s: 0}", "target.otlp.settle_s"),
    ("{enabled: true, sesion_attribute: x}", "target.otlp.sesion_attribute"),
])
def test_bad_otlp_config_is_one_line_naming_file_and_field(tmp_path: Path, otlp: str, field: str) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(f"target: {{type: http, base_url: 'http://127.0.0.1:9', otlp: {otlp}}}\n")
    with pytest.raises(UserError) as err:
        config.load_run_config(path)
    line = str(err.value)
    assert "\n" not in line and str(path) in line and field in line


def test_a_port_in_use_is_a_user_error_naming_the_field(receiver: OtlpReceiver) -> None:
    with pytest.raises(UserError, match="target.otlp.port"):
        OtlpReceiver("127.0.0.1", receiver.server_address[1], "session.id")


def test_the_receivers_address_is_not_part_of_the_target_digest() -> None:
    from adat.engine.fingerprint import target_digest

    def digest(**otlp: Any) -> str:
        return target_digest(config.RunConfig.model_validate(
            {"target": {"type": "http", "base_url": "http://127.0.0.1:9", "otlp": otlp}}))

    assert digest(enabled=True, port=4318) == digest(enabled=True, port=0, host="0.0.0.0")
    assert digest(enabled=True) != digest(enabled=False) != digest(enabled=False, session_attribute="x")
    assert target_digest(config.RunConfig()) == target_digest(config.RunConfig())  # a target without otlp


@pytest.mark.parametrize("global_sdk_provider", [True, False])
def test_an_in_process_agent_on_the_global_provider_is_flushed_after_the_reply(
        monkeypatch: pytest.MonkeyPatch, global_sdk_provider: bool) -> None:
    from opentelemetry import trace

    target = PythonTarget(f"{AGENTS}:GlobalProviderAgent", {}, config.OtlpReceiver(enabled=True, port=0, settle_s=1.5))
    provider = target.inner.provider
    if global_sdk_provider:
        monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    else:  # the agent's provider is not the global one: adat cannot flush it, its spans wait for their batch
        monkeypatch.setattr(trace, "get_tracer_provider",
                            lambda: type("Api", (), {"get_tracer": lambda _self, name: provider.get_tracer(name)})())
    started = time.monotonic()
    reply = target.invoke(target.reset(), "hello")
    assert [c.name for c in reply.tool_calls] == (["lookup"] if global_sdk_provider else [])
    assert time.monotonic() - started < (1.0 if global_sdk_provider else 3.0)
    provider.shutdown()
