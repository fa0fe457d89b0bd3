"""A tiny scripted agent server on 127.0.0.1 for the http-target tests."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

HANG_LIMIT_S = 10.0  # a "hung" request is released at teardown, or after this long


class ScriptedServer(ThreadingHTTPServer):
    """Default contract plus scripted failures chosen by the user message:

    ``boom`` -> 500, ``hang`` -> no answer until released, ``notjson`` -> text body,
    ``noreply`` -> JSON without the reply field. A custom contract lives under /api/v1.
    """

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self._ids = itertools.count(1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def next_id(self) -> int:
        return next(self._ids)


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null")
        self.server.requests.append(("POST", self.path, dict(self.headers), body))
        path = self.path
        if path == "/sessions":
            return self._json(200, {"session_id": f"s{self.server.next_id()}"})
        if path == "/api/v1/conversations":
            return self._json(201, {"data": {"conversation": {"id": self.server.next_id()}}})
        if path.startswith("/api/v1/conversations/") and path.endswith("/turns"):
            return self._json(200, {"output": {"choices": [{"text": f"custom: {body['input']}"}]}})
        if path.startswith("/sessions/") and path.endswith("/messages"):
            message = body["message"]
            if message == "boom":
                return self._json(500, {"error": "agent crashed"})
            if message == "hang":
                self.server.release.wait(HANG_LIMIT_S)
                return self._json(200, {"reply": "too late"})
            if message == "notjson":
                return self._raw(200, b"<html>oops</html>")
            if message == "noreply":
                return self._json(200, {"answer": "x"})
            return self._json(200, {"reply": f"echo: {message}"})
        return self._json(404, {"error": "no route"})

    def _json(self, status: int, doc: Any) -> None:
        self._raw(status, json.dumps(doc).encode())

    def _raw(self, status: int, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout test)
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join()
