"""adat's OTLP/HTTP receiver: ``POST /v1/traces`` (protobuf or JSON), spans kept for open turns.

A turn (:meth:`SpanStore.open_turn`) watches the trace id of the ``traceparent`` adat sent with the
message, and the session id under the configured session attribute. A span is kept when its trace
is watched, or when a span of its trace carries a watched session id (the trace then joins that
session); any other span is held briefly (its trace may be claimed by a span of a later batch) and
then dropped: spans of an unknown trace never reach a turn. :meth:`SpanStore.close_turn` waits up
to ``settle_s`` after the reply, since exporters send in batches, and stops early once the agent's
span of the message (a child of adat's span, or the root of a session's trace) has arrived.

The server is :class:`adat.serving.BackgroundServer` (Starlette under uvicorn). One receiver per
host and port serves a whole process (:func:`shared_receiver`): every target a run builds joins it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from adat.errors import UserError
from adat.serving import BackgroundServer
from adat.targets.otlp_spans import JSON, PROTOBUF, MalformedExport, Span, decode_export

TRACES_PATH = "/v1/traces"
MAX_BODY_BYTES = 16 * 1024 * 1024
#: seconds an unclaimed span (or a claimed span no turn collected) is kept before it is dropped
HOLD_S = 120.0
_MAX_HELD = 20_000  # unclaimed spans kept at most: a chatty unrelated exporter cannot fill memory
_POLL_S = 0.02


@dataclass
class Turn:
    """One message's watch: adat's trace and span id for it, the session, when it started."""

    trace_id: str
    span_id: str
    session_id: str
    started: float = field(default_factory=time.monotonic)


@dataclass
class _Held:
    span: Span
    arrived: float
    session: str | None = None  # the session its trace joined, if any


class SpanStore:
    """Thread-safe: the receiver's request handler adds spans, each turn's thread collects its own."""

    def __init__(self, session_attribute: str) -> None:
        self.session_attribute = session_attribute
        self._sessions: dict[str, int] = {}  # session id -> open turns watching it
        self._trace_session: dict[str, str] = {}  # trace id -> session its spans joined
        self._held: deque[_Held] = deque()
        self._lock = threading.Lock()

    @property
    def unclaimed(self) -> int:
        """Spans held now whose trace no watched turn or session has claimed."""
        with self._lock:
            return sum(1 for h in self._held if h.session is None)

    def open_turn(self, trace_id: str, span_id: str, session_id: str) -> Turn:
        """Watch ``trace_id`` and ``session_id`` from now on."""
        turn = Turn(trace_id, span_id, session_id)
        with self._lock:
            self._trace_session[trace_id] = session_id
            self._sessions[session_id] = self._sessions.get(session_id, 0) + 1
        return turn

    def add(self, spans: list[Span]) -> None:
        """Keep the spans of watched traces and sessions; hold the others for a while."""
        now = time.monotonic()
        with self._lock:
            for span in spans:  # a batch's spans with the session attribute claim their trace first
                value = span.attributes.get(self.session_attribute)
                if value is not None and str(value) in self._sessions:
                    self._trace_session.setdefault(span.trace_id, str(value))
            self._held.extend(_Held(s, now, self._trace_session.get(s.trace_id)) for s in spans)
            for held in self._held:  # a trace claimed now claims its spans of earlier batches
                if held.session is None:
                    held.session = self._trace_session.get(held.span.trace_id)
            while self._held and (now - self._held[0].arrived > HOLD_S or len(self._held) > _MAX_HELD):
                self._held.popleft()

    def close_turn(self, turn: Turn, settle_s: float) -> list[Span]:
        """The turn's spans, waiting up to ``settle_s`` for them; the turn stops watching."""
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline and not self._complete(turn):
            time.sleep(_POLL_S)
        with self._lock:
            mine = [h for h in self._held if self._belongs(h, turn)]
            taken = {id(h) for h in mine}
            self._held = deque(h for h in self._held if id(h) not in taken)
            self._trace_session.pop(turn.trace_id, None)  # a span of it arriving later is unclaimed
            self._sessions[turn.session_id] -= 1
            if not self._sessions[turn.session_id]:
                del self._sessions[turn.session_id]
        return [h.span for h in mine]

    def _belongs(self, held: _Held, turn: Turn) -> bool:
        if held.span.trace_id == turn.trace_id:
            return True
        return held.session == turn.session_id and held.arrived >= turn.started

    def _complete(self, turn: Turn) -> bool:
        """The agent's top span of this message arrived: its children ended (and were sent) before it."""
        with self._lock:
            for held in self._held:
                if not self._belongs(held, turn):
                    continue
                span = held.span
                if span.parent_span_id == turn.span_id or (span.trace_id != turn.trace_id and not span.parent_span_id):
                    return True
        return False


def otlp_app(store: SpanStore) -> Starlette:
    """The ASGI app: ``POST /v1/traces`` answers as the OTLP/HTTP specification says."""

    async def traces(request: Request) -> Response:
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media not in (PROTOBUF, JSON):
            return _text(415, f"Content-Type must be {PROTOBUF} or {JSON}")
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _text(413, f"body over {MAX_BODY_BYTES} bytes")
        try:
            spans = decode_export(body, media, request.headers.get("content-encoding", ""))
        except MalformedExport as exc:
            return _text(400, str(exc))
        store.add(spans)
        if media == JSON:
            return JSONResponse({})
        return Response(b"", media_type=PROTOBUF)  # an empty ExportTraceServiceResponse: all accepted

    return Starlette(routes=[Route(TRACES_PATH, traces, methods=["POST"])])


def _text(status: int, message: str) -> Response:
    return Response(message, status_code=status, media_type="text/plain")


class OtlpReceiver(BackgroundServer):
    """The receiver's server and span store; ``endpoint`` is what an exporter is pointed at."""

    def __init__(self, host: str, port: int, session_attribute: str) -> None:
        self.store = SpanStore(session_attribute)
        try:
            super().__init__(otlp_app(self.store), host, port, name="adat-otlp-receiver")
        except UserError as exc:
            raise UserError(exc.message, field="target.otlp.port",
                            fix="choose a free port (0: any, for an in-process python agent) or stop "
                                "the other receiver (an OpenTelemetry collector listens on 4318)") from None
        self.start_in_thread()

    @property
    def endpoint(self) -> str:
        """The traces URL, e.g. ``http://127.0.0.1:4318/v1/traces``."""
        return self.url + TRACES_PATH


_RECEIVERS: dict[tuple[str, int], OtlpReceiver] = {}
_RECEIVERS_LOCK = threading.Lock()


def shared_receiver(host: str, port: int, session_attribute: str) -> OtlpReceiver:
    """The process's receiver on ``host:port`` (started on first use; port 0: one on a free port).

    Each run step builds its own target; they share one receiver, which serves until the process
    ends. Two session attributes on one port are a configuration mistake.
    """
    with _RECEIVERS_LOCK:
        receiver = _RECEIVERS.get((host, port))
        if receiver is None:
            receiver = _RECEIVERS[(host, port)] = OtlpReceiver(host, port, session_attribute)
        elif receiver.store.session_attribute != session_attribute:
            raise UserError(f"the receiver on {host}:{port} already joins by {receiver.store.session_attribute!r}",
                            field="target.otlp.session_attribute", fix="use one attribute per port")
        return receiver


def latest_endpoint() -> str | None:
    """The traces URL of the most recently started receiver of this process, if any."""
    with _RECEIVERS_LOCK:
        return next(reversed(_RECEIVERS.values())).endpoint if _RECEIVERS else None
