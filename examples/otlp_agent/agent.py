"""A tiny order-desk agent instrumented with the OpenTelemetry SDK: what adat's OTLP receiver reads.

The agent knows nothing of adat. Each message is an ``invoke_agent`` span; each tool it runs is an
``execute_tool`` span following the OpenTelemetry GenAI semantic conventions
(``gen_ai.operation.name``, ``gen_ai.tool.name``, ``gen_ai.tool.call.arguments``,
``gen_ai.tool.call.result``, an ERROR status when the tool fails). A real ``TracerProvider`` with a
``BatchSpanProcessor`` and the OTLP/HTTP ``OTLPSpanExporter`` sends them to ``endpoint``.

Run by adat as a ``python`` target (run.yaml), each message runs inside adat's trace context, so
the spans join the turn by trace id; the ``session.id`` attribute on ``invoke_agent`` would join
them too if the agent started traces of its own (an agent served over HTTP continues the trace
from the ``traceparent`` header adat sends instead).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode

USERS = {"grace.dubois9572@example.com": "grace_dubois_8144", "arjun.jensen6049@example.com": "arjun_jensen_7882"}
ORDERS = {"#W2832706": "pending", "#W9271454": "processed", "#W7114153": "delivered",
          "#W2922893": "pending", "#W1351594": "delivered"}
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_ORDER = re.compile(r"#W\d{7}")


class ToolError(Exception):
    """A tool refused the call (the span's status says so)."""


class OrderDeskAgent:
    """``reset()`` / ``invoke()``: looks users and orders up, cancels a pending order once confirmed."""

    def __init__(self, endpoint: str = "http://127.0.0.1:4318/v1/traces", export_delay_ms: int = 500) -> None:
        self.provider = TracerProvider(resource=Resource.create({"service.name": "order-desk-agent"}))
        self.provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint),
                                                            schedule_delay_millis=export_delay_ms))
        self.tracer = self.provider.get_tracer("order-desk-agent")
        self._ids = itertools.count(1)
        self._sessions: dict[str, dict[str, Any]] = {}

    def reset(self) -> str:
        session_id = f"desk-{next(self._ids)}"
        self._sessions[session_id] = {"user": None, "order": None}
        return session_id

    def invoke(self, session_id: str, message: str) -> str:
        state = self._sessions[session_id]
        with self.tracer.start_as_current_span("invoke_agent order-desk") as span:
            span.set_attributes({"gen_ai.operation.name": "invoke_agent", "session.id": session_id})
            return self._answer(state, message)

    def _answer(self, state: dict[str, Any], message: str) -> str:
        lines = []
        email = _EMAIL.search(message)
        if email:
            try:
                state["user"] = self._tool("find_user_id_by_email", {"email": email.group()},
                                           lambda a: USERS.get(a["email"]) or _fail("no user has this email"))
                lines.append("Thanks, I found your account.")
            except ToolError:
                lines.append("I could not find an account with that email.")
        order = _ORDER.search(message)
        if order:
            try:
                status = self._tool("get_order_details", {"order_id": order.group()},
                                    lambda a: ORDERS.get(a["order_id"]) or _fail("unknown order"))
                state["order"] = order.group()
                lines.append(f"Order {order.group()} is {status}.")
            except ToolError:
                lines.append(f"I could not find order {order.group()}.")
        if re.search(r"\b(yes|confirm)\b", message, re.I) and state["order"] and state["user"]:
            try:
                self._tool("cancel_pending_order", {"order_id": state["order"], "reason": "no longer needed"},
                           _cancel)
                lines.append(f"Order {state['order']} is cancelled.")
            except ToolError as exc:
                lines.append(f"I cannot cancel it: {exc}.")
        elif "cancel" in message.lower() and state["order"]:
            lines.append(f"Shall I cancel order {state['order']}? Please answer yes to confirm.")
        return " ".join(lines) or "I can look up your orders: tell me your email and the order number."

    def _tool(self, name: str, arguments: dict[str, Any], run: Any) -> Any:
        """Run a tool inside its execute_tool span (GenAI semantic conventions)."""
        with self.tracer.start_as_current_span(f"execute_tool {name}") as span:
            span.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                                 "gen_ai.tool.call.arguments": json.dumps(arguments)})
            try:
                result = run(arguments)
            except ToolError as exc:
                span.set_status(Status(StatusCode.ERROR, str(exc)))
                span.set_attribute("error.type", "ToolError")
                raise
            span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
            return result


def _cancel(arguments: dict[str, Any]) -> str:
    if ORDERS[arguments["order_id"]] != "pending":
        raise ToolError("only a pending order can be cancelled")
    return "cancelled"


def _fail(reason: str) -> Any:
    raise ToolError(reason)


def make_agent(endpoint: str = "http://127.0.0.1:4318/v1/traces", export_delay_ms: int = 500) -> OrderDeskAgent:
    """The factory run.yaml names (``target.factory``)."""
    return OrderDeskAgent(endpoint, export_delay_ms)
