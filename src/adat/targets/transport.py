"""What the ``http`` and ``a2a`` targets share: one message's exchange (docs/targets.md states the
same for users).

* **Every failure is a** :class:`adat.errors.TargetError` -- an HTTP error status, a timeout, a
  refused, reset or closed connection, a reply cut off before its end, a body the target cannot
  read, or any other exception of the transport -- with one line naming the URL and the cause, so
  the runner records it on that execution and the run goes on.
* **Deadline.** ``target.timeout_s`` bounds one message's whole exchange -- connecting, sending,
  every byte of the reply and every retry -- not each socket read: a reply dripped a byte at a
  time fails at ``timeout_s``. A message that runs out of time is not retried (the time is spent).
  Each exchange runs as a coroutine on one event loop thread per process, so ``asyncio.timeout``
  can end it even in the middle of a read; calling threads (the execution workers) block on their
  own exchange only, and a forked child (a process pool) starts its own loop on first use.
* **Retries.** Transient failures (:class:`TransientTargetError`: a refused, reset or closed
  connection, a reply cut off, HTTP 429 and 5xx) are retried up to ``target.max_retries`` times per
  message, with exponential backoff from ``target.retry_backoff_s`` (tenacity), inside the
  deadline, and counted per session (``transport_retries``, stored as ``executions.retries``). A
  retried message may reach the agent twice; ``max_retries: 0`` turns retries off.
* **Connections** the agent keeps alive are reused between messages and sessions (pooled clients).
* **Size.** A reply longer than ``target.max_reply_chars`` is cut there and marked (:data:`CUT_MARK`).
* **Secrets.** Header values are secrets (:mod:`adat.redaction`): every reply and error message is
  scrubbed before it leaves the target.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
import urllib.parse
from collections.abc import Callable, Coroutine
from functools import cache
from typing import Any, Generic, TypeVar

import httpx
import tenacity

from adat import config, redaction
from adat.errors import TargetError

T = TypeVar("T")
C = TypeVar("C", config.HttpTarget, config.A2ATarget)

_BODY_SNIPPET = 200  # characters of an error body kept in the one-line message
#: hosts reached without the environment's proxy settings
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: appended to a reply cut at ``target.max_reply_chars`` ({cap}: the cap, {total}: the reply's length)
CUT_MARK = " [adat: reply cut at {cap} of {total} characters]"

_lock = threading.Lock()
_pid: int | None = None
_loop: asyncio.AbstractEventLoop | None = None
#: what lives on the loop (httpx and SDK clients), by their owner's key; touched only on the loop's thread
loop_clients: dict[Any, Any] = {}


class TransientTargetError(TargetError):
    """A failure worth another try: the connection or the agent may do better a moment later."""


def submit(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``await make()`` on the process's loop; its result or its exception, here."""
    return asyncio.run_coroutine_threadsafe(make(), _running_loop()).result()


def pooled_client(trust_env: bool) -> httpx.AsyncClient:
    """The process's pooled client (on the loop's thread only)."""
    client = loop_clients.get(trust_env)
    if client is None:
        client = loop_clients[trust_env] = httpx.AsyncClient(
            trust_env=trust_env, verify=ssl_context(),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=32))
    assert isinstance(client, httpx.AsyncClient)
    return client


def _running_loop() -> asyncio.AbstractEventLoop:
    global _pid, _loop
    with _lock:
        if _loop is None or _pid != os.getpid():
            loop_clients.clear()  # a forked child's copies belong to the parent's loop
            _loop, _pid = asyncio.new_event_loop(), os.getpid()
            threading.Thread(target=_loop.run_forever, name="adat-http", daemon=True).start()
        return _loop


@cache
def ssl_context() -> ssl.SSLContext:
    """One default TLS context per process (building one costs tens of milliseconds)."""
    return httpx.create_ssl_context()


class RetryingTransport(Generic[C]):
    """A network target's config, headers, proxy choice and per-session retry counts, and
    :meth:`_exchange`. Picklable without its lock (a Dask worker, a process pool)."""

    def __init__(self, cfg: C, url: str) -> None:
        self.cfg: C = cfg
        # A loopback agent is never reached through a proxy that the environment may configure.
        self._trust_env = (urllib.parse.urlsplit(url).hostname or "") not in LOOPBACK
        # Header values may reference secrets as ${VAR}; expanded once (and registered as secrets).
        self._headers = {name: config.expand_env_refs(value, field=f"target.headers.{name}")
                         for name, value in cfg.headers.items()}
        config.register_header_secrets(cfg.headers)
        self._retries: dict[str, int] = {}
        self._lock = threading.Lock()

    def transport_retries(self, session_id: str) -> int:
        """How many times a message of this session (its reset included) was sent again."""
        with self._lock:
            return self._retries.get(session_id, 0)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _count(self, session_id: str, retries: int) -> None:
        if retries:
            with self._lock:
                self._retries[session_id] = self._retries.get(session_id, 0) + retries

    def _cut(self, text: str) -> str:
        """``text`` cut at ``target.max_reply_chars`` (and marked), scrubbed of secrets."""
        cap = self.cfg.max_reply_chars
        return redaction.scrub(text if len(text) <= cap else text[:cap] + CUT_MARK.format(cap=cap, total=len(text)))

    def _exchange(self, where: str, counter: list[int], attempt: Callable[..., Coroutine[Any, Any, T]],
                  *args: Any) -> T:
        """``await attempt(*args)`` on the loop, transient failures retried, all of it within ``timeout_s``.

        Every failure leaves as one scrubbed :class:`TargetError` line starting with ``where``;
        ``counter[0]`` counts the retries.
        """
        limit = self.cfg.timeout_s
        last: list[BaseException] = []  # the failure a retry was for: named when the deadline ends it

        def before_sleep(state: tenacity.RetryCallState) -> None:
            counter[0] += 1
            failure = state.outcome.exception() if state.outcome is not None else None
            if failure is not None:
                last[:] = [failure]

        async def exchange() -> T:
            retrying = tenacity.AsyncRetrying(
                retry=tenacity.retry_if_exception_type(TransientTargetError),
                stop=tenacity.stop_after_attempt(self.cfg.max_retries + 1),
                wait=tenacity.wait_exponential(multiplier=self.cfg.retry_backoff_s, max=30 * self.cfg.retry_backoff_s),
                before_sleep=before_sleep, reraise=True)
            async with asyncio.timeout(limit):  # the deadline: the whole exchange, retries included
                return await retrying(attempt, *args)

        error: TargetError
        try:
            return submit(exchange)
        except TimeoutError:
            retried = f"; retrying after: {one_line(str(last[0]))}" if last else ""
            error = TargetError(f"{where}: no complete answer within {limit:g} s (timeout){retried}")
        except TargetError as exc:
            error = exc
        except Exception as exc:  # anything else the transport raises is this execution's error
            error = TargetError(f"{where}: {type(exc).__name__}: {one_line(str(exc))}")
        failed = type(error)(redaction.scrub(f"{error}{retries_note(counter[0])}"))
        failed.retries = counter[0]
        raise failed from None


def retries_note(retries: int) -> str:
    """`` (after N retries)`` to end an error line with, or nothing when there was none."""
    return f" (after {retries} {'retry' if retries == 1 else 'retries'})" if retries else ""


def one_line(text: str) -> str:
    """One line, at most ``_BODY_SNIPPET`` characters: error messages stay one line."""
    flat = " ".join(redaction.scrub(text).split())  # scrubbed before cutting: no half secret survives
    return flat if len(flat) <= _BODY_SNIPPET else flat[: _BODY_SNIPPET - 1] + "…"
