"""The ``http`` target: an agent behind a JSON REST endpoint.

The default contract (what ``adat serve-agent`` speaks)::

    POST {base_url}/sessions                     -> {"session_id": "..."}
    POST {base_url}/sessions/{session_id}/messages  {"message": "..."} -> {"reply": "..."}

Paths, the message field and the dotted JSON paths of the session id and the reply are all
configurable (``target.*`` in the run config). Every failure of a call -- HTTP error status,
timeout, refused connection, a body that is not JSON or lacks the configured path -- raises
:class:`adat.errors.TargetError` with one line naming the status, the URL and the path, so the
runner records it on that execution and the run goes on.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from adat import config
from adat.errors import TargetError, UserError

_BODY_SNIPPET = 200  # characters of an error body kept in the one-line message
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def lookup_json_path(doc: Any, path: str) -> Any:
    """The value at a dotted path (``"data.session.id"``, ``"choices.0.text"``); ``""`` = whole doc.

    Raises ``KeyError`` naming the first missing segment.
    """
    value = doc
    for part in (p for p in path.split(".") if p):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        else:
            raise KeyError(part)
    return value


class HttpTarget:
    """An agent reached over HTTP; thread-safe (every call is an independent request)."""

    def __init__(self, cfg: config.HttpTarget) -> None:
        self.cfg = cfg
        self.base_url = cfg.base_url.rstrip("/")
        self.agent_id = f"http:{self.base_url}"
        # A loopback agent is never reached through a proxy that the environment may configure.
        host = urllib.parse.urlsplit(self.base_url).hostname or ""
        handlers = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)
        # Header values may reference secrets as ${VAR}; expanded once, never logged or echoed.
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        for name, value in cfg.headers.items():
            self._headers[name] = config.expand_env_refs(value, field=f"target.headers.{name}")

    def check(self, timeout_s: float | None = None) -> None:
        """Fail fast with a :class:`UserError` when ``target.base_url`` cannot be reached.

        Any HTTP answer, even 404, proves the server is there; only a connection failure, a
        timeout (``timeout_s``, default ``target.timeout_s``) or a malformed URL is an error.
        """
        parsed = urllib.parse.urlsplit(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise UserError(f"not an http(s) URL: {self.cfg.base_url!r}", field="target.base_url",
                            fix="write it like http://127.0.0.1:8000")
        request = urllib.request.Request(self.base_url + "/", headers=self._headers, method="GET")
        try:
            with self._opener.open(request, timeout=timeout_s or self.cfg.timeout_s):
                pass
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise UserError(f"cannot reach {self.base_url} ({reason})", field="target.base_url",
                            fix="start the agent server or correct the URL and port") from None

    def reset(self) -> str:
        """Start a session: POST ``reset_path``; the id is read at ``session_id_path``."""
        url = self.base_url + self.cfg.reset_path
        doc = self._post(url, {})
        session_id = self._extract(doc, self.cfg.session_id_path, url, "session_id_path")
        if not isinstance(session_id, str | int) or isinstance(session_id, bool) or session_id == "":
            raise TargetError(f"POST {url}: session id at {self.cfg.session_id_path!r} is "
                              f"{type(session_id).__name__} {_snippet(json.dumps(session_id))}, not a string")
        return str(session_id)

    def invoke(self, session_id: str, user_message: str) -> str:
        """Send one user message; the reply is read at ``reply_path``."""
        path = self.cfg.invoke_path.replace("{session_id}", urllib.parse.quote(session_id, safe=""))
        url = self.base_url + path
        doc = self._post(url, {self.cfg.message_field: user_message})
        reply = self._extract(doc, self.cfg.reply_path, url, "reply_path")
        if not isinstance(reply, str):
            raise TargetError(f"POST {url}: reply at {self.cfg.reply_path!r} is "
                              f"{type(reply).__name__} {_snippet(json.dumps(reply))}, not a string")
        return reply

    def _post(self, url: str, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, headers=self._headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.cfg.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = _snippet(_read_quietly(exc))
            raise TargetError(f"POST {url}: HTTP {exc.code} {exc.reason}: {detail}") from None
        except TimeoutError:
            raise TargetError(f"POST {url}: no answer within {self.cfg.timeout_s:g} s (timeout)") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise TargetError(f"POST {url}: no answer within {self.cfg.timeout_s:g} s (timeout)") from None
            raise TargetError(f"POST {url}: connection failed ({exc.reason})") from None
        except (OSError, ValueError) as exc:  # reset by peer, bad status line, malformed URL
            raise TargetError(f"POST {url}: {type(exc).__name__}: {_snippet(str(exc))}") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise TargetError(f"POST {url}: response is not JSON: {_snippet(raw.decode(errors='replace'))}") from None

    def _extract(self, doc: Any, path: str, url: str, field: str) -> Any:
        try:
            return lookup_json_path(doc, path)
        except KeyError as exc:
            raise TargetError(f"POST {url}: no {exc.args[0]!r} at JSON path {path!r} (target.{field}) in "
                              f"{_snippet(json.dumps(doc))}") from None


def _read_quietly(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read().decode(errors="replace")
    except OSError:
        return ""


def _snippet(text: str) -> str:
    """One line, at most ``_BODY_SNIPPET`` characters: error messages stay one line."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _BODY_SNIPPET else flat[: _BODY_SNIPPET - 1] + "…"
