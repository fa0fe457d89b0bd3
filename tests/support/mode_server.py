"""Chat-completions servers on 127.0.0.1 (FastAPI + uvicorn) that accept ONE structured-output form.

``ModeServer(accepts, responder)`` behaves like a class of real servers:

* ``json_schema``: takes ``response_format: {type: json_schema}`` (OpenAI, vLLM); any other
  ``response_format`` is HTTP 400;
* ``json_object_schema``: takes ``{type: json_object, schema: ...}`` only, and answers
  ``json_schema`` with HTTP 500 "Input should be 'text' or 'json_object'" (llama-cpp-python's server);
* ``prompt_fenced``: rejects every ``response_format`` (HTTP 400) and answers in prose with the
  JSON in a Markdown fence (a server or model with no JSON mode).

``responder(body)`` is a scripted model keyed by the role's schema name, as the tests' other
chat servers use (``body["response_format"]["json_schema"]["name"]``): the server finds that name
in whatever form the request carried the schema (the ``json_schema`` name, the schema's
``title``, or the schema written into the system message) and hands the responder a body in
``json_schema`` form. Every POST is recorded in ``requests`` (bodies as sent).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

_SCHEMA_IN_PROMPT = re.compile(r"matches this JSON schema:\n(\{.*\})\s*$", re.DOTALL)


class ModeServer:
    """A uvicorn server in a thread; use as a context manager."""

    def __init__(self, accepts: str, responder: Callable[[dict[str, Any]], Any]) -> None:
        assert accepts in ("json_schema", "json_object_schema", "prompt_fenced")
        self.accepts = accepts
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        app = FastAPI()
        app.get("/v1/models")(self._models)
        app.post("/v1/chat/completions")(self._chat)
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error",
                                                     access_log=False))
        self._thread = threading.Thread(target=self._server.run, name=f"mode-server-{accepts}", daemon=True)

    @property
    def base_url(self) -> str:
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    def __enter__(self) -> ModeServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("mode server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    # --- routes ----------------------------------------------------------------------------
    async def _models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "scripted-model", "object": "model", "created": 0, "owned_by": "t"}]}

    async def _chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
        fmt = body.get("response_format")
        kind = fmt.get("type") if isinstance(fmt, dict) else None
        if self.accepts == "json_schema" and kind not in (None, "text", "json_schema"):
            return _error(400, f"response_format type {kind!r} is not supported")
        if self.accepts == "json_object_schema" and kind not in (None, "text", "json_object"):
            return _error(500, "Input should be 'text' or 'json_object'")
        if self.accepts == "prompt_fenced" and fmt is not None:
            return _error(400, "response_format is not supported by this server")
        name = _schema_name(body)
        if name is None and kind is None and self.accepts != "prompt_fenced":
            return _error(400, "this test server answers structured requests only")
        answer = self.responder({**body, "response_format": {"type": "json_schema", "json_schema": {"name": name}}})
        content = answer if isinstance(answer, str) else answer.content
        if self.accepts == "prompt_fenced":
            content = f"Sure! Here is the JSON you asked for:\n\n```json\n{content}\n```\nLet me know if you need more."
        tokens = max(1, len(json.dumps(body["messages"])) // 4)
        return JSONResponse({"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion",
                             "created": int(time.time()), "model": body.get("model", "?"),
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": content}}],
                             "usage": {"prompt_tokens": tokens, "completion_tokens": 20,
                                       "total_tokens": tokens + 20}})


def _schema_name(body: dict[str, Any]) -> str | None:
    """The role's schema name from the json_schema name, the schema's title, or the system message."""
    fmt = body.get("response_format") or {}
    schema = None
    if (fmt.get("json_schema") or {}).get("name"):
        return str(fmt["json_schema"]["name"])
    if isinstance(fmt.get("schema"), dict):
        schema = fmt["schema"]
    else:
        for message in body.get("messages", []):
            found = _SCHEMA_IN_PROMPT.search(str(message.get("content") or ""))
            if message.get("role") == "system" and found:
                schema = json.loads(found.group(1))
    if schema is None:
        return None
    if set(schema.get("properties", {})) == {"ok"}:
        return "adat_output_probe"
    return str(schema.get("title", ""))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error", "code": status}},
                        status_code=status)
