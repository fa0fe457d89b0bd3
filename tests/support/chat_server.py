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
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog of 5 resets connections when 16 clients connect at once
    request_queue_size = 128


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
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

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
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> ChatServer:
        server = _Server(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="chat-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # releases hanging handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- answering -----------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            answer = self.responder(body)
            return Reply(content=answer) if isinstance(answer, str) else answer
        return Reply(status=400, error_body={"error": {"message": "chat server: no scripted reply left"}})

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        recorded = RecordedRequest(handler.path, {k.lower(): v for k, v in handler.headers.items()}, body)
        if self.answer_probes and _is_probe(body):
            with self._lock:
                self.probes.append(recorded)
            _send(handler, 200, _completion(body, Reply(content='{"ok": true}')), {})
            return
        with self._lock:
            self.requests.append(recorded)
        if handler.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            _send(handler, 404, {"error": {"message": f"no route {handler.path}"}}, {})
            return
        reply = self._next_reply(body)
        if reply.hang_s and self._stop.wait(reply.hang_s):
            return
        if reply.status != 200:
            _send(handler, reply.status, reply.error_body or {"error": {"message": "error"}}, reply.headers)
            return
        _send(handler, 200, _completion(body, reply), reply.headers)


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


def _send(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
    data = json.dumps(payload).encode("utf-8")
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up (timeout); nothing to tell it


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            server._answer(self)

        def do_GET(self) -> None:  # noqa: N802
            # GET /v1/models is what adat's preflight asks first; it takes no scripted reply.
            if self.path.rstrip("/") in ("/v1/models", "/models") and server.serve_models:
                _send(self, 200, {"object": "list", "data": [
                    {"id": "scripted-model", "object": "model", "created": 0, "owned_by": "test"}]}, {})
            else:
                _send(self, 404, {"error": {"message": f"no route {self.path}"}}, {})

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

    return Handler
