"""Secrets never stored: one registry of secret values and one :func:`scrub` for every sink.

What is a secret: every value a ``${VAR}`` reference in the run config expands to, every
configured header value of an ``http`` target (``target.headers``), whole and expanded, and the
LLM API key. They are
registered when they come into being -- :func:`adat.config.expand_env_refs` and the validation of
an ``http`` target config -- so every process that can send them (the CLI, a flow, a worker) also
knows them. Values shorter than :data:`MIN_SECRET_CHARS` are not treated as secrets (masking
``"1"`` or ``"on"`` would mangle every text, and they are not credentials).

Where text is scrubbed (each occurrence becomes :data:`MASK`):

* at the boundary where text enters adat: the ``http`` target's replies and error messages
  (:mod:`adat.targets.http`), so no transcript, judge prompt, verdict or cache ever holds one;
* at write time, for anything else: every string of every row :func:`adat.warehouse.write_records`
  writes, the HTML report and the JUnit export, and every log record of the process (a log record
  factory, installed by the first :func:`register`).

The LLM API key (:func:`adat.config.api_key`) is registered too; the openai provider also keeps
its own scrub of it.
"""

from __future__ import annotations

import functools
import html
import json
import logging
import threading
import urllib.parse
from collections.abc import Iterable
from typing import Any

#: what a secret is replaced with
MASK = "***"
#: shorter values are not secrets (see the module docstring)
MIN_SECRET_CHARS = 4

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()  # longest first, so a secret containing another is masked whole


def register(*values: str) -> None:
    """Treat each value (and its JSON-escaped and URL-quoted spellings) as a secret from now on."""
    global _secrets
    spellings = {v for value in values if len(value) >= MIN_SECRET_CHARS for v in _spellings(value)}
    if not spellings - set(_secrets):
        return
    with _lock:
        _secrets = tuple(sorted(set(_secrets) | spellings, key=len, reverse=True))
        _install_log_scrubber()


def registered() -> tuple[str, ...]:
    """The secret spellings known to this process (for tests and diagnostics; never print them)."""
    return _secrets


def forget_all() -> None:
    """Drop every registered secret (tests only)."""
    global _secrets
    with _lock:
        _secrets = ()


def scrub(text: str) -> str:
    """``text`` with every registered secret replaced by :data:`MASK`."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def scrub_value(value: Any) -> Any:
    """``value`` with :func:`scrub` applied to every string inside (dicts, lists and tuples)."""
    if not _secrets:
        return value
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: scrub_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub_value(item) for item in value)
    return value


def _spellings(value: str) -> Iterable[str]:
    yield value
    yield json.dumps(value)[1:-1]  # as it appears inside a JSON string an agent echoes
    yield json.dumps(value, ensure_ascii=False)[1:-1]
    yield html.escape(value)  # as the HTML report and the JUnit XML write it
    yield html.escape(value, quote=False)
    yield urllib.parse.quote(value, safe="")
    yield urllib.parse.quote_plus(value)


@functools.cache  # wraps the factory once
def _install_log_scrubber() -> None:
    """Wrap the log record factory: every record's message and traceback are scrubbed before any
    handler (terminal, Prefect's API log, a file) formats it."""
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _secrets:
            try:
                message = record.getMessage()
            except Exception:  # a bad format string: leave it to the handler to report
                return record
            record.msg, record.args = scrub(message), None
            if record.exc_info and record.exc_info[1] is not None:
                record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
        return record

    logging.setLogRecordFactory(factory)
