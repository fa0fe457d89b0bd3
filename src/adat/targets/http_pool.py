"""One event loop thread and pooled httpx clients per process, for the ``http`` and ``a2a`` targets.

Each message's exchange runs as a coroutine on this loop, so ``asyncio.timeout`` can end it at its
deadline even in the middle of a read (a per-read socket timeout cannot), and connections the agent
keeps alive are reused between messages and sessions. Calling threads (the execution workers)
block on their own exchange only. A forked child (a process pool) starts its own loop on first use.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
from collections.abc import Callable, Coroutine
from functools import cache
from typing import Any, TypeVar

import httpx

T = TypeVar("T")

_lock = threading.Lock()
_pid: int | None = None
_loop: asyncio.AbstractEventLoop | None = None
_clients: dict[bool, httpx.AsyncClient] = {}  # by trust_env; touched only on the loop's thread


def run(exchange: Callable[[httpx.AsyncClient], Coroutine[Any, Any, T]], *, trust_env: bool) -> T:
    """``await exchange(client)`` on the process's loop; its result or its exception, here."""

    async def on_loop() -> T:
        client = _clients.get(trust_env)
        if client is None:
            client = _clients[trust_env] = httpx.AsyncClient(
                trust_env=trust_env, verify=ssl_context(),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=32))
        return await exchange(client)

    return asyncio.run_coroutine_threadsafe(on_loop(), _running_loop()).result()


def submit(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``await make()`` on the process's loop (a transport that owns its client, as the a2a target's);
    its result or its exception, here."""
    return asyncio.run_coroutine_threadsafe(make(), _running_loop()).result()


def _running_loop() -> asyncio.AbstractEventLoop:
    global _pid, _loop
    with _lock:
        if _loop is None or _pid != os.getpid():
            _clients.clear()  # a forked child's copies belong to the parent's loop
            _loop, _pid = asyncio.new_event_loop(), os.getpid()
            threading.Thread(target=_loop.run_forever, name="adat-http", daemon=True).start()
        return _loop


@cache
def ssl_context() -> ssl.SSLContext:
    """One default TLS context per process (building one costs tens of milliseconds)."""
    return httpx.create_ssl_context()
