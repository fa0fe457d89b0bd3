"""Agents instrumented with the real OpenTelemetry SDK, for the OTLP receiver's tests.

``make_traced_reference``: adat's reference agent whose tool calls leave it only as spans --
``invoke`` answers plain text, and each tool call becomes an ``execute_tool`` span (GenAI semantic
conventions) exported by a real ``TracerProvider`` + ``BatchSpanProcessor`` + ``OTLPSpanExporter``
over HTTP. The batch delay puts the export after the reply, as a real agent's would be. Each turn's
calls are logged as JSON lines to ``log_path``, so a test run in another process can compare.
"""

from __future__ import annotations

import json
import secrets
import threading
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode

from adat.targets.base import AgentReply


def tracer_for(endpoint: str, delay_ms: int = 300) -> tuple[TracerProvider, trace.Tracer]:
    """A provider of its own (never the global one) exporting to ``endpoint`` every ``delay_ms``."""
    provider = TracerProvider(resource=Resource.create({"service.name": "traced-agent"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, timeout=10),
                                                   schedule_delay_millis=delay_ms))
    return provider, provider.get_tracer("tests.otlp_agents")


def record_tool(tracer: trace.Tracer, name: str, arguments: dict[str, Any], result: Any,
                error: str | None = None, **attributes: Any) -> None:
    """One ``execute_tool`` span as the GenAI conventions describe it."""
    with tracer.start_as_current_span(f"execute_tool {name}", kind=trace.SpanKind.INTERNAL) as span:
        span.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                             "gen_ai.tool.call.arguments": json.dumps(arguments), **attributes})
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, error))
            span.set_attribute("error.type", "ToolError")
        else:
            span.set_attribute("gen_ai.tool.call.result", json.dumps(result))


class TracedReference:
    """The reference agent, answering text only; its tool calls are spans."""

    def __init__(self, endpoint: str, log_path: str | None = None, delay_ms: int = 300) -> None:
        from adat.targets.target_factory import build_reference_agent

        self.inner = build_reference_agent(None, None)
        self.agent_id = "traced-reference"
        self.provider, self.tracer = tracer_for(endpoint, delay_ms)
        self.log_path = Path(log_path) if log_path else None
        self._lock = threading.Lock()
        self._token = secrets.token_hex(3)  # every run step builds an agent: ids stay unique in the log

    def reset(self) -> str:
        return f"{self._token}.{self.inner.reset()}"

    def invoke(self, session_id: str, message: str) -> str:
        inner_id = session_id.split(".", 1)[1]
        # the current context is adat's trace (the receiver's traceparent): this span is its child
        with self.tracer.start_as_current_span("invoke_agent traced-reference") as span:
            span.set_attribute("gen_ai.operation.name", "invoke_agent")
            reply = self.inner.invoke(inner_id, message)
            assert isinstance(reply, AgentReply)
            for call in reply.tool_calls:
                record_tool(self.tracer, call.name, call.arguments, call.result, call.error)
        if self.log_path is not None:
            with self._lock, self.log_path.open("a") as log:
                log.write(json.dumps({"session": session_id, "calls": [
                    [c.name, c.arguments, None if c.error else c.result, c.error] for c in reply.tool_calls]}) + "\n")
        return reply.text  # text only: the calls reach adat through the receiver or not at all


def make_traced_reference(endpoint: str | None = None, log_path: str | None = None,
                          delay_ms: int = 300) -> TracedReference:
    """The factory a run config names; ``endpoint`` None = the receiver adat started (port 0)."""
    if endpoint is None:
        from adat.targets.otlp_join import receiver_endpoint

        endpoint = receiver_endpoint()
        assert endpoint, "no receiver started before the factory"
    return TracedReference(endpoint, log_path, delay_ms)


class LateAgent:
    """One tool call per message, exported exactly ``delay_s`` after the reply (a flush on a timer)."""

    def __init__(self, endpoint: str, delay_s: float) -> None:
        self.provider, self.tracer = tracer_for(endpoint, delay_ms=600_000)  # only the timer's flush sends
        self.delay_s = delay_s

    def reset(self) -> str:
        return "late-1"

    def invoke(self, session_id: str, message: str) -> str:
        with self.tracer.start_as_current_span("invoke_agent"):
            record_tool(self.tracer, "lookup", {"message": message}, {"found": True})
        threading.Timer(self.delay_s, self.provider.force_flush).start()
        return "done"


def make_late(delay_s: float) -> LateAgent:
    """A :class:`LateAgent` exporting to the receiver adat started (``target.otlp.port: 0``)."""
    from adat.targets.otlp_join import receiver_endpoint

    endpoint = receiver_endpoint()
    assert endpoint, "no receiver started before the factory"
    return LateAgent(endpoint, delay_s)


class GlobalProviderAgent:
    """Spans on "the global provider" (a test patches ``trace.get_tracer_provider``) that exports only
    when flushed: adat's flush after the reply is what sends them."""

    def __init__(self) -> None:
        from adat.targets.otlp_join import receiver_endpoint

        endpoint = receiver_endpoint()
        assert endpoint, "no receiver started before the factory"
        self.provider, _ = tracer_for(endpoint, delay_ms=600_000)

    def reset(self) -> str:
        return "global-1"

    def invoke(self, session_id: str, message: str) -> str:
        tracer = trace.get_tracer_provider().get_tracer("global-agent")
        with tracer.start_as_current_span("invoke_agent"):
            record_tool(tracer, "lookup", {"message": message}, {"found": True})
        return "done"
