"""A tiny scripted agent server on 127.0.0.1 for the http-target tests (Starlette under uvicorn)."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from adat.serving import BackgroundServer

HANG_LIMIT_S = 10.0  # a "hung" request is released at teardown, or after this long


class ScriptedServer:
    """Default contract plus scripted failures chosen by the user message:

    ``boom`` -> 500, ``hang`` -> no answer until released, ``notjson`` -> text body,
    ``noreply`` -> JSON without the reply field. A custom contract lives under /api/v1.
    ``requests`` holds ``(method, path, headers, body)``; the headers are case-insensitive.
    """

    def __init__(self) -> None:
        self.release = threading.Event()
        self.requests: list[tuple[str, str, Any, Any]] = []
        self._ids = itertools.count(1)
        app = Starlette(routes=[Route("/{path:path}", self._post, methods=["POST"])])
        self.server = BackgroundServer(app, "127.0.0.1", 0, name="scripted-agent")

    @property
    def url(self) -> str:
        return self.server.url

    async def _post(self, request: Request) -> Response:
        body = json.loads(await request.body() or b"null")
        path = request.url.path
        self.requests.append(("POST", path, request.headers, body))
        if path == "/sessions":
            return JSONResponse({"session_id": f"s{next(self._ids)}"})
        if path == "/api/v1/conversations":
            return JSONResponse({"data": {"conversation": {"id": next(self._ids)}}}, status_code=201)
        if path.startswith("/api/v1/conversations/") and path.endswith("/turns"):
            return JSONResponse({"output": {"choices": [{"text": f"custom: {body['input']}"}]}})
        if path.startswith("/sessions/") and path.endswith("/messages"):
            message = body["message"]
            if message == "boom":
                return JSONResponse({"error": "agent crashed"}, status_code=500)
            if message == "hang":
                await run_in_threadpool(self.release.wait, HANG_LIMIT_S)
                return JSONResponse({"reply": "too late"})
            if message == "notjson":
                return Response(b"<html>oops</html>")
            if message == "noreply":
                return JSONResponse({"answer": "x"})
            return JSONResponse({"reply": f"echo: {message}"})
        return JSONResponse({"error": "no route"}, status_code=404)


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    server.server.start_in_thread()
    try:
        yield server
    finally:
        server.release.set()
        server.server.stop()
