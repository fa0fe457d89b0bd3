"""A scriptable OpenAI-compatible chat-completions server on 127.0.0.1 for tests of the real client.

Usage::

    with ChatServer() as server:
        server.push_json({"answer": 42})
        server.push_status(429, headers={"Retry-After": "2"})
        cfg.llm.base_url = server.base_url            # http://127.0.0.1:<port>/v1
        ...
        server.requests[0].body["response_format"]     # what the client sent
        server.requests[0].headers["authorization"]    # "Bearer <key>"

GET /v1/models lists one model (``serve_models = False`` answers 404 instead). Each POST
/v1/chat/completions takes the next scripted reply from the queue; when the queue is
empty the ``responder`` callable (if set) answers, otherwise the server returns HTTP 400 so a
test that forgot to script a reply fails loudly instead of retrying. Preflight's output-mode probe
(a ``json_schema`` request named ``adat_output_probe``) is answered ``{"ok": true}`` outside the
queue and recorded in ``probes``, not ``requests`` (``answer_probes = False`` treats it as any request).
A Starlette app under uvicorn (:class:`adat.serving.BackgroundServer`); answers are made on its
thread pool, so a hanging reply holds one worker, not the server.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from adat.serving import BackgroundServer


@dataclass
class Reply:
    """One scripted answer. ``status != 200`` sends an error; ``hang_s`` waits before answering."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_body: dict[str, Any] | None = None
    hang_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ChatServer:
    """Threaded fake endpoint; use as a context manager or call start()/stop()."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[RecordedRequest] = []
        self.responder: Callable[[dict[str, Any]], Reply | str] | None = None
        #: answer GET /v1/models (False: 404, as servers without that route do)
        self.serve_models = True
        #: answer preflight's output-mode probe outside the script (it then means: json_schema works)
        self.answer_probes = True
        self.probes: list[RecordedRequest] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._server: BackgroundServer | None = None

    # --- scripting -----------------------------------------------------------------------
    def push(self, reply: Reply) -> None:
        self.replies.append(reply)

    def push_content(self, text: str, **usage: Any) -> None:
        self.push(Reply(content=text, **usage))

    def push_json(self, obj: Any, **usage: Any) -> None:
        self.push(Reply(content=json.dumps(obj), **usage))

    def push_malformed(self, text: str = '{"answer": 42,, oops', **usage: Any) -> None:
        self.push(Reply(content=text, **usage))

    def push_tool_calls(self, calls: list[tuple[str, dict[str, Any]]], content: str | None = None) -> None:
        """Tool calls as (function name, arguments); ids are call_0, call_1, ..."""
        self.push(Reply(content=content, tool_calls=[
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(calls)
        ]))

    def push_status(self, status: int, headers: dict[str, str] | None = None, message: str = "scripted error") -> None:
        self.push(Reply(status=status, headers=headers or {},
                        error_body={"error": {"message": message, "type": "scripted", "code": status}}))

    def push_hang(self, seconds: float) -> None:
        """Answer only after ``seconds`` (longer than the client timeout -> the client times out)."""
        self.push(Reply(content="too late", hang_s=seconds))

    # --- lifecycle -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() the server first"
        return f"{self._server.url}/v1"

    def start(self) -> ChatServer:
        route = "/{path:path}"
        app = Starlette(routes=[Route(route, self._get, methods=["GET"]), Route(route, self._post, methods=["POST"])])
        self._server = BackgroundServer(app, "127.0.0.1", 0, name="chat-server")
        self._server.start_in_thread()
        return self

    def stop(self) -> None:
        self._stop.set()  # releases hanging answers
        if self._server is not None:
            self._server.stop()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- answering -----------------------------------------------------------------------
    async def _get(self, request: Request) -> JSONResponse:
        # GET /v1/models is what adat's preflight asks first; it takes no scripted reply.
        if request.url.path.rstrip("/") in ("/v1/models", "/models") and self.serve_models:
            return JSONResponse({"object": "list", "data": [
                {"id": "scripted-model", "object": "model", "created": 0, "owned_by": "test"}]})
        return JSONResponse({"error": {"message": f"no route {request.url.path}"}}, status_code=404)

    async def _post(self, request: Request) -> JSONResponse:
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raw = await request.body()
        status, payload, headers = await run_in_threadpool(self._answer, path, dict(request.headers), raw)
        return JSONResponse(payload, status_code=status, headers=headers)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            answer = self.responder(body)
            return Reply(content=answer) if isinstance(answer, str) else answer
        return Reply(status=400, error_body={"error": {"message": "chat server: no scripted reply left"}})

    def _answer(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        recorded = RecordedRequest(path, headers, body)
        if self.answer_probes and _is_probe(body):
            with self._lock:
                self.probes.append(recorded)
            return 200, _completion(body, Reply(content='{"ok": true}')), {}
        with self._lock:
            self.requests.append(recorded)
        if path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return 404, {"error": {"message": f"no route {path}"}}, {}
        reply = self._next_reply(body)
        if reply.hang_s and self._stop.wait(reply.hang_s):
            return 503, {"error": {"message": "chat server stopped"}}, {}  # the client has given up
        if reply.status != 200:
            return reply.status, reply.error_body or {"error": {"message": "error"}}, reply.headers
        return 200, _completion(body, reply), reply.headers


def _is_probe(body: dict[str, Any]) -> bool:
    fmt = body.get("response_format") or {}
    return isinstance(fmt, dict) and (fmt.get("json_schema") or {}).get("name") == "adat_output_probe"


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    prompt_tokens = reply.prompt_tokens
    if prompt_tokens is None:  # deterministic stand-in for a tokenizer
        prompt_tokens = max(1, len(json.dumps(body.get("messages", []))) // 4)
    completion_tokens = reply.completion_tokens
    if completion_tokens is None:
        completion_tokens = max(1, len(reply.content or "") // 4 + 10 * len(reply.tool_calls))
    return {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "unknown"),
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
