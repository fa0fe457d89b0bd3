"""A real HTTP agent on 127.0.0.1 that misbehaves on purpose, for the http-target transport tests.

It speaks the http target's default contract over raw sockets (so it can break the protocol in
ways a framework would refuse to): ``POST /sessions``, ``POST /sessions/{id}/messages``, and any
``GET`` answers 200. Each POST draws a :data:`FAULTS` kind from ``plan(n, path)`` (``n`` counts
POSTs from 0); the default plan is "ok". The agent behind it is any in-process target (the
reference agent by default); its reply is what the faults cut, drip or inflate.
"""

from __future__ import annotations

import contextlib
import json
import random
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from adat.serving import SessionGuard
from adat.targets.base import Target

#: ok | truncate (Content-Length promises more than is sent, then close) | close (no answer at all)
#: | drip (1 byte a second) | oversize (the reply padded past 1 MB) | e503 | echo400 / echo500 /
#: echo_reply (the request's headers echoed in an error body or in the reply)
FAULTS = ("ok", "truncate", "close", "drip", "oversize", "e503", "echo400", "echo500", "echo_reply")
OVERSIZE_CHARS = 1_100_000
_PLAIN_HEADERS = {"host", "connection", "user-agent", "content-type", "content-length", "accept", "accept-encoding"}
Plan = Callable[[int, str], str]


def rate_plan(rate: float, kinds: tuple[str, ...], seed: int = 7, paths: str = "/messages") -> Plan:
    """Each POST whose path ends with ``paths`` is faulty with probability ``rate`` (one of ``kinds``,
    drawn from a seeded generator, so the sequence of faults is fixed)."""
    rng = random.Random(seed)
    lock = threading.Lock()

    def plan(_n: int, path: str) -> str:
        if not path.endswith(paths):
            return "ok"
        with lock:
            return rng.choice(kinds) if rng.random() < rate else "ok"

    return plan


def cycle_plan(every: int, kinds: tuple[str, ...], paths: str = "/messages") -> Plan:
    """Every ``every``-th POST whose path ends with ``paths`` is faulty, cycling through ``kinds``
    (a rate of 1/``every`` with every kind shown once ``every * len(kinds)`` such POSTs were made)."""
    counter = iter(range(10**9))
    lock = threading.Lock()

    def plan(_n: int, path: str) -> str:
        if not path.endswith(paths):
            return "ok"
        with lock:
            k = next(counter)
        return kinds[(k // every) % len(kinds)] if k % every == every - 1 else "ok"

    return plan


class FaultAgent(socketserver.ThreadingTCPServer):
    """The server; ``log`` holds ``(n, path, fault, seconds from accept to last byte written)``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, agent: Target, plan: Plan | None = None, *, drip_s: float = 1.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.guard = SessionGuard(agent)
        self.plan: Plan = plan or (lambda _n, _p: "ok")
        self.drip_s = drip_s
        self.log: list[tuple[int, str, str, float]] = []
        self._count = 0
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def logged(self, timeout_s: float = 5.0) -> list[tuple[int, str, str, float]]:
        """``log`` once every request drawn so far is in it: a handler appends its entry after the
        last byte of its reply, so a client can hold the reply before the entry exists."""
        deadline = time.monotonic() + timeout_s
        while len(self.log) < self._count and time.monotonic() < deadline:
            time.sleep(0.01)
        return list(self.log)

    def draw(self, path: str) -> tuple[int, str]:
        with self._lock:
            n, self._count = self._count, self._count + 1
        return n, self.plan(n, path)


class _Handler(socketserver.StreamRequestHandler):
    server: FaultAgent

    def handle(self) -> None:
        started = time.monotonic()
        request_line = self.rfile.readline().decode("latin-1").split()
        if len(request_line) < 2:
            return
        method, path = request_line[0], request_line[1]
        headers: dict[str, str] = {}
        while (line := self.rfile.readline().decode("latin-1").strip()):
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = self.rfile.read(int(headers.get("content-length") or 0))
        if method != "POST":
            return self._send(200, b'{"status": "ok"}')
        n, fault = self.server.draw(path)
        with contextlib.suppress(OSError):  # the client gave up (a deadline): nothing more to say
            self._answer(path, fault, headers, body)
        self.server.log.append((n, path, fault, time.monotonic() - started))

    def _answer(self, path: str, fault: str, headers: dict[str, str], body: bytes) -> None:
        echoed = "; ".join(f"{k}: {v}" for k, v in headers.items() if k not in _PLAIN_HEADERS)
        if fault == "close":
            return  # closed without a status line
        if fault == "e503":
            return self._send(503, b'{"error": "overloaded, try again"}')
        if fault in ("echo400", "echo500"):
            doc = {"error": f"rejected request with headers {echoed}"}
            return self._send(400 if fault == "echo400" else 500, json.dumps(doc).encode())
        status, doc = self._agent(path, body)
        if fault == "echo_reply" and "reply" in doc:
            doc["reply"] += f" (debug: you sent {echoed})"
        if fault == "oversize" and "reply" in doc:
            doc["reply"] += " " + "x" * OVERSIZE_CHARS
        data = json.dumps(doc).encode()
        if fault == "truncate":
            return self._send(status, data, cut=len(data) // 2)
        if fault == "drip":
            return self._send(status, data, drip=True)
        return self._send(status, data)

    def _agent(self, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        guard = self.server.guard
        if path == "/sessions":
            return 200, {"session_id": guard.reset()}
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "sessions" and parts[2] == "messages" and guard.knows(parts[1]):
            return 200, {"reply": guard.invoke(parts[1], json.loads(body)["message"]).text}
        return 404, {"error": "no such session or path"}

    def _send(self, status: int, data: bytes, *, cut: int | None = None, drip: bool = False) -> None:
        head = (f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                "Connection: close\r\n\r\n").encode()
        self.wfile.write(head)
        self.wfile.flush()
        if drip:
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(self.server.drip_s)
            return
        self.wfile.write(data if cut is None else data[:cut])
        self.wfile.flush()


@contextmanager
def fault_agent(agent: Target, plan: Plan | None = None, **kwargs: Any) -> Iterator[FaultAgent]:
    """``FaultAgent`` serving on a background thread for the ``with`` block."""
    server = FaultAgent(agent, plan, **kwargs)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
