"""Joining an instrumented agent's spans to adat's turns (``target.otlp``, http and python targets).

For every message adat makes a W3C trace context: a new trace id and adat's own span id, sent as
the ``traceparent`` header by the ``http`` target. A ``python`` target's agent runs inside it: the
header value is :func:`current_traceparent`, and when the OpenTelemetry API is installed the
context is also the current OpenTelemetry context, so the agent's spans become children of adat's
span without any code of its own. Spans of that trace, or of a trace whose spans carry the session
id under ``target.otlp.session_attribute``, that reach the receiver between the message and
``settle_s`` after the reply are the turn's; their ``execute_tool`` spans are its tool calls.
When any arrive they replace the calls the reply itself reported (the spans are the record of
what ran); a turn without tool spans keeps the reply's own.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from adat import config
from adat.targets.base import AgentReply, as_reply

if TYPE_CHECKING:
    from adat.targets.otlp_receiver import OtlpReceiver

TRACEPARENT = "traceparent"
_CURRENT: ContextVar[str | None] = ContextVar("adat_traceparent", default=None)


def current_traceparent() -> str | None:
    """The ``traceparent`` of the message being sent now (None outside a joined turn)."""
    return _CURRENT.get()


def trace_headers() -> dict[str, str]:
    """The headers the ``http`` target adds to the message being sent now (none outside a turn)."""
    value = _CURRENT.get()
    return {TRACEPARENT: value} if value else {}


def receiver_endpoint() -> str | None:
    """The traces URL of this process's receiver (``target.otlp.port: 0`` picks a free port):
    a python agent's factory may point its ``OTLPSpanExporter`` here."""
    from adat.targets.otlp_receiver import latest_endpoint  # protobuf loads only when a receiver is used

    return latest_endpoint()


@contextlib.contextmanager
def in_trace(traceparent: str) -> Iterator[None]:
    """Make ``traceparent`` the current one (and the current OpenTelemetry context, if installed)."""
    token = _CURRENT.set(traceparent)
    try:
        from opentelemetry import context
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    except ImportError:  # the agent is not instrumented with the OpenTelemetry API: the header is enough
        otel_token = None
    else:
        otel_token = context.attach(TraceContextTextMapPropagator().extract({TRACEPARENT: traceparent}))
    try:
        yield
    finally:
        if otel_token is not None:
            context.detach(otel_token)
        _CURRENT.reset(token)


def _flush_global_provider() -> None:
    """An in-process agent on the global SDK provider exports now, not at its batch's next tick."""
    try:
        from opentelemetry import trace
    except ImportError:
        return
    flush = getattr(trace.get_tracer_provider(), "force_flush", None)  # the API's default provider has none
    if callable(flush):
        flush(5_000)


class OtlpJoin:
    """One target's join to the process's receiver; :meth:`invoke` wraps a message's exchange."""

    def __init__(self, cfg: config.OtlpReceiver) -> None:
        from adat.targets.otlp_receiver import shared_receiver  # protobuf loads only when a receiver is used

        self.cfg = cfg
        self.receiver: OtlpReceiver = shared_receiver(cfg.host, cfg.port, cfg.session_attribute)

    def invoke(self, session_id: str, send: Callable[[], AgentReply | str], *, in_process: bool = False) -> AgentReply:
        """Send one message (``send``) inside a new trace; the reply with the turn's span tool calls.

        ``in_process``: the agent runs in this process (a python target), so the global
        OpenTelemetry tracer provider, if the agent uses the SDK's, is flushed after the reply.
        """
        trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
        store = self.receiver.store
        turn = store.open_turn(trace_id, span_id, session_id)
        try:
            with in_trace(f"00-{trace_id}-{span_id}-01"):
                reply = as_reply(send())
            if in_process:
                _flush_global_provider()
        except BaseException:
            store.close_turn(turn, 0)  # a failed message: stop watching at once
            raise
        spans = store.close_turn(turn, self.cfg.settle_s)
        from adat.targets.otlp_spans import tool_calls

        calls = tool_calls(spans)
        return reply.model_copy(update={"tool_calls": calls}) if calls else reply

    def __getstate__(self) -> dict[str, Any]:  # picklable: another process joins its own receiver
        return {"cfg": self.cfg}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["cfg"])  # type: ignore[misc]


def joiner(cfg: config.OtlpReceiver) -> OtlpJoin | None:
    """The join a target's ``otlp`` section asks for (None when the receiver is off)."""
    return OtlpJoin(cfg) if cfg.enabled else None
