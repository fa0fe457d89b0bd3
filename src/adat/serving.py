"""Serve an agent over HTTP in the ``http`` target's default contract (``adat serve-agent``).

::

    GET  /health                         -> {"status": "ok", "agent_id": ...}
    POST /sessions                       -> {"session_id": ...}
    POST /sessions/{session_id}/messages    {"message": ...} -> {"reply": ..., "tool_calls": [...]}

``tool_calls`` lists the tool calls the agent reported for that reply (``name``, ``arguments``,
``result``, ``error``, ``order``), where the ``http`` target's default ``tool_calls_path`` reads them.

A Starlette app under uvicorn. Errors answer with a JSON body ``{"error": ...}``: 404 for an
unknown path or session, 400 for a body that is not a JSON object with a string ``message``, 500
when the agent raises. The agent runs on the server's thread pool; a lock per session keeps one
session's turns in order while sessions run in parallel. Evaluation-only data (side log, session
database) is never served: it stays on the agent object, where an in-process auditor or test reads it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from adat import config
from adat.errors import UserError
from adat.targets.base import AgentReply, AgentToolCall, Target, as_reply

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 1_000_000  # a user message is text; anything larger is a client bug
_START_TIMEOUT_S = 20.0
#: where a reply's tool calls go in the JSON answer (the http target's default ``tool_calls_path``)
TOOL_CALLS_KEY = "tool_calls"


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

    def invoke(self, session_id: str, message: str) -> AgentReply:
        with self._session_locks[session_id]:
            return as_reply(self.agent.invoke(session_id, message))


def agent_app(agent: Target) -> Starlette:
    """The ASGI app speaking the default contract for ``agent``."""
    guard = SessionGuard(agent)

    async def health(_request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "agent_id": getattr(agent, "agent_id", "")})

    async def new_session(request: Request) -> JSONResponse:
        if await _body(request) is None:
            return _error(400, "missing, invalid or too large Content-Length")
        return await _run(request, guard.reset, "session_id")

    async def message(request: Request) -> JSONResponse:
        session_id = request.path_params["session_id"]
        body = await _json_object(request)
        if isinstance(body, JSONResponse):
            return body
        text = body.get("message")
        if not isinstance(text, str):
            return _error(400, 'body must be {"message": "<text>"}')
        if not guard.knows(session_id):
            return _error(404, f"unknown session {session_id!r}; POST /sessions first")
        return await _run(request, lambda: guard.invoke(session_id, text), "reply")

    async def not_found(request: Request, _exc: Exception) -> JSONResponse:
        hint = "; try GET /health" if request.method == "GET" else ""
        return _error(404, f"no route {request.method} {request.url.path}{hint}")

    routes = [Route("/health", health, methods=["GET"]), Route("/sessions", new_session, methods=["POST"]),
              Route("/sessions/{session_id}/messages", message, methods=["POST"])]
    # An unknown path and a known path with the wrong method both answer 404 with a hint.
    return Starlette(routes=routes, exception_handlers={HTTPException: not_found})


async def _run(request: Request, action: Callable[[], str | AgentReply], key: str) -> JSONResponse:
    try:
        result = await run_in_threadpool(action)
    except Exception as exc:  # the agent failed: the client sees a 500 and the run goes on
        logger.warning("agent error on %s: %s", request.url.path, exc, exc_info=True)
        return _error(500, f"{type(exc).__name__}: {' '.join(str(exc).split())}")
    if isinstance(result, AgentReply):  # the reply's text, and its tool calls at the default path
        return JSONResponse({key: result.text, TOOL_CALLS_KEY: [_tool_call_json(c) for c in result.tool_calls]})
    return JSONResponse({key: result})


def _tool_call_json(call: AgentToolCall) -> dict[str, Any]:
    return {"name": call.name, "arguments": call.arguments, "result": call.result, "error": call.error,
            "order": call.order}


async def _body(request: Request) -> bytes | None:
    """The request body, or None when its declared or actual length is invalid or too large."""
    try:
        declared = int(request.headers.get("content-length") or 0)
    except ValueError:
        return None
    if not 0 <= declared <= MAX_BODY_BYTES:
        return None
    raw = await request.body()
    return raw if len(raw) <= MAX_BODY_BYTES else None


async def _json_object(request: Request) -> dict[str, Any] | JSONResponse:
    raw = await _body(request)
    if raw is None:
        return _error(400, "missing, invalid or too large Content-Length")
    try:
        body = json.loads(raw)
    except ValueError:
        return _error(400, "body is not JSON")
    if not isinstance(body, dict):
        return _error(400, "body must be a JSON object")
    return body


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class BackgroundServer:
    """An ASGI app under uvicorn on a bound socket; ``start_in_thread()`` or ``run()``, ``stop()``.

    The socket is bound here (port 0: a free one), so a port in use is a :class:`UserError`
    before any thread starts and the URL is known at once.
    """

    def __init__(self, app: Any, host: str = config.SERVE_HOST, port: int = 0, *, name: str = "adat-server") -> None:
        try:
            self.socket = socket.create_server((host, port), backlog=128)
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise UserError(f"cannot listen on {host}:{port} ({reason})", field="--port",
                            fix="choose a free port, or 0 for any") from None
        self.name = name
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                                    timeout_graceful_shutdown=5))
        self._thread: threading.Thread | None = None

    @property
    def server_address(self) -> tuple[str, int]:
        host, port = self.socket.getsockname()[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.server_address
        return f"http://{host}:{port}"

    def start_in_thread(self) -> None:
        """Serve from a daemon thread; returns once the server accepts requests."""
        self._thread = threading.Thread(target=self.run, name=f"{self.name}-{self.server_address[1]}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not self.server.started:  # uvicorn sets it once the socket is being served
            if time.monotonic() > deadline or not self._thread.is_alive():
                self.stop()
                raise RuntimeError(f"{self.name} did not start within {_START_TIMEOUT_S:g} s")
            time.sleep(0.01)

    def run(self) -> None:
        """Serve in this thread until ``stop()`` (or, in the main thread, Ctrl-C / SIGTERM)."""
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.socket.close()

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.socket.close()


def serve_agent(agent: Target, host: str = config.SERVE_HOST, port: int = 0) -> tuple[BackgroundServer, str]:
    """Serve ``agent`` on a background thread; returns the server (``stop()`` it) and its URL.

    ``port=0`` picks a free port.
    """
    server = BackgroundServer(agent_app(agent), host, port, name="adat-agent-server")
    server.start_in_thread()
    return server, server.url


def serve_agent_command(kind: str, fault: str | None, port: int, cfg: config.RunConfig) -> None:
    """``adat serve-agent reference|llm-agent [--fault ID] --port P``: build the agent, serve it in
    this thread until interrupted (Ctrl-C).

    ``reference`` takes its database (and fault, unless ``--fault`` is given) from ``target`` when
    the run config's target is the reference agent; ``llm-agent`` needs ``target.type: llm-agent``
    (its model, policy and database) in the run config.
    """
    agent = build_served_agent(kind, fault, cfg)
    server = BackgroundServer(agent_app(agent), config.SERVE_HOST, port, name="adat-agent-server")
    print(f"serving {getattr(agent, 'agent_id', 'agent')} at {server.url} (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn shuts down on Ctrl-C, then re-raises it
        server.run()


def build_served_agent(kind: str, fault: str | None, cfg: config.RunConfig) -> Target:
    """The agent ``adat serve-agent KIND`` serves; ``fault`` overrides the config's fault."""
    from adat.targets.target_factory import build_reference_agent, build_target

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
