"""Serve an agent over HTTP in the ``http`` target's default contract (``adat serve-agent``).

::

    GET  /health                         -> {"status": "ok", "agent_id": ...}
    POST /sessions                       -> {"session_id": ...}
    POST /sessions/{session_id}/messages    {"message": ...} -> {"reply": ...}

Errors answer with a JSON body ``{"error": ...}``: 404 for an unknown path or session, 400 for a
body that is not a JSON object with a string ``message``, 500 when the agent raises. Requests run
on threads; a lock per session keeps one session's turns in order while sessions run in
parallel. Evaluation-only data (side log, session database) is never served: it stays on the
agent object, where an in-process auditor or test reads it.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from adat import config
from adat.errors import UserError
from adat.targets.base import Target

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 1_000_000  # a user message is text; anything larger is a client bug


class SessionGuard:
    """Thread-safe access to a target: resets are serialised, each session has its own lock."""

    def __init__(self, agent: Target) -> None:
        self.agent = agent
        self._reset_lock = threading.Lock()
        self._session_locks: dict[str, threading.Lock] = {}

    def reset(self) -> str:
        with self._reset_lock:
            session_id = self.agent.reset()
            self._session_locks[session_id] = threading.Lock()
        return session_id

    def knows(self, session_id: str) -> bool:
        return session_id in self._session_locks

    def invoke(self, session_id: str, message: str) -> str:
        with self._session_locks[session_id]:
            return self.agent.invoke(session_id, message)


class AgentServer(ThreadingHTTPServer):
    """A threading HTTP server bound to one agent; ``stop()`` shuts it down and frees the port."""

    daemon_threads = True

    def __init__(self, agent: Target, host: str, port: int) -> None:
        self.guard = SessionGuard(agent)
        self._thread: threading.Thread | None = None
        super().__init__((host, port), _AgentHandler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def start_in_thread(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"adat-agent-server-{self.server_address[1]}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()


class _AgentHandler(BaseHTTPRequestHandler):
    server: AgentServer
    server_version = "adat-agent/1"

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/health":
            self._send(200, {"status": "ok", "agent_id": getattr(self.server.guard.agent, "agent_id", "")})
        else:
            self._send(404, {"error": f"no route GET {self.path}; try GET /health"})

    def do_POST(self) -> None:
        parts = [urllib.parse.unquote(p) for p in self.path.split("?")[0].strip("/").split("/")]
        guard = self.server.guard
        if parts == ["sessions"]:
            self._drain_body()
            self._run(lambda: {"session_id": guard.reset()})
        elif len(parts) == 3 and parts[0] == "sessions" and parts[2] == "messages":
            session_id = parts[1]
            body = self._json_body()
            if body is None:
                return
            message = body.get("message")
            if not isinstance(message, str):
                self._send(400, {"error": 'body must be {"message": "<text>"}'})
            elif not guard.knows(session_id):
                self._send(404, {"error": f"unknown session {session_id!r}; POST /sessions first"})
            else:
                self._run(lambda: {"reply": guard.invoke(session_id, message)})
        else:
            self._drain_body()
            self._send(404, {"error": f"no route POST {self.path}"})

    def _run(self, action: Callable[[], dict[str, Any]]) -> None:
        try:
            result = action()
        except Exception as exc:  # the agent failed: the client sees a 500 and the run goes on
            logger.warning("agent error on %s: %s", self.path, exc, exc_info=True)
            self._send(500, {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())}"})
        else:
            self._send(200, result)

    def _read_body(self) -> bytes | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY_BYTES:
            self._send(400, {"error": "missing, invalid or too large Content-Length"})
            return None
        return self.rfile.read(length) if length else b""

    def _drain_body(self) -> None:
        self._read_body()

    def _json_body(self) -> dict[str, Any] | None:
        raw = self._read_body()
        if raw is None:
            return None
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, {"error": "body is not JSON"})
            return None
        if not isinstance(body, dict):
            self._send(400, {"error": "body must be a JSON object"})
            return None
        return body

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        logger.debug("%s %s", self.address_string(), format % args)


def serve_agent(agent: Target, host: str = config.SERVE_HOST, port: int = 0) -> tuple[AgentServer, str]:
    """Serve ``agent`` on a background thread; returns the server (``stop()`` it) and its URL.

    ``port=0`` picks a free port.
    """
    server = _bind(agent, host, port)
    server.start_in_thread()
    return server, server.url


def run_server_forever(agent: Target, host: str = config.SERVE_HOST, port: int = 0, *,
                       announce: Callable[[str], None] = print) -> None:
    """Serve ``agent`` in this thread until interrupted (Ctrl-C); ``announce`` gets the URL line."""
    server = _bind(agent, host, port)
    announce(f"serving {getattr(agent, 'agent_id', 'agent')} at {server.url} (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def serve_agent_command(kind: str, fault: str | None, port: int, cfg: config.RunConfig, *,
                        host: str = config.SERVE_HOST, announce: Callable[[str], None] = print) -> None:
    """``adat serve-agent reference|llm-agent [--fault ID] --port P``: build the agent, serve it forever.

    ``reference`` takes its database (and fault, unless ``--fault`` is given) from ``target`` when
    the run config's target is the reference agent; ``llm-agent`` needs ``target.type: llm-agent``
    (its model, policy and database) in the run config.
    """
    run_server_forever(build_served_agent(kind, fault, cfg), host, port, announce=announce)


def build_served_agent(kind: str, fault: str | None, cfg: config.RunConfig) -> Target:
    """The agent ``adat serve-agent KIND`` serves; ``fault`` overrides the config's fault."""
    from adat.targets.factory import build_reference_agent, build_target

    target = cfg.target
    if kind == "reference":
        database = target.database if isinstance(target, config.ReferenceTarget) else None
        config_fault = target.fault if isinstance(target, config.ReferenceTarget) else None
        return build_reference_agent(database, fault or config_fault)
    if kind == "llm-agent":
        if not isinstance(target, config.LLMAgentTarget):
            raise UserError(f"the run config's target is {target.type!r}, not llm-agent", field="target",
                            fix="set target.type: llm-agent and target.model: provider/model in the run config")
        return build_target(target.model_copy(update={"fault": fault or target.fault}), cfg)
    raise UserError(f"unknown agent kind {kind!r}", field="KIND", fix="use reference or llm-agent")


def _bind(agent: Target, host: str, port: int) -> AgentServer:
    try:
        return AgentServer(agent, host, port)
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port} ({exc.strerror or exc})", field="--port",
                        fix="choose a free port, or 0 for any") from None
