"""The ``http`` target: an agent behind a JSON REST endpoint, reached with httpx.

The default contract (what ``adat serve-agent`` speaks)::

    POST {base_url}/sessions                     -> {"session_id": "..."}
    POST {base_url}/sessions/{session_id}/messages  {"message": "..."} -> {"reply": "..."}

Paths, the message field and the dotted JSON paths of the session id, the reply and its tool
calls are all configurable (``target.*`` in the run config). The tool calls (``tool_calls_path``,
default ``tool_calls``) are a list of objects with ``name``, ``arguments`` (an object, or JSON text
as OpenAI writes it), ``result`` (or ``output``), ``error`` and ``order``; a reply without the path
reports no tool calls (a text-only agent works as before), a value of the wrong shape is an error.

Transport: :mod:`adat.targets.transport`. Besides, HTTP 4xx other than 429, bodies that are not JSON
or lack the path, and a body over :data:`MAX_BODY_BYTES` (it cannot be parsed whole) are errors
that are not retried.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import httpx

from adat import config, redaction
from adat.errors import TargetError, UserError
from adat.targets import otlp_join, transport
from adat.targets.base import AgentReply, AgentToolCall
from adat.targets.transport import RetryingTransport, TransientTargetError, one_line

#: a reply body larger than this is an error: the JSON must be parsed whole before the reply is cut
MAX_BODY_BYTES = 8 * 1024 * 1024
_TRANSIENT_STATUS = 429  # besides every 5xx


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


class HttpTarget(RetryingTransport[config.HttpTarget]):
    """An agent reached over HTTP; thread-safe (every call is an independent request)."""

    def __init__(self, cfg: config.HttpTarget) -> None:
        self.base_url = cfg.base_url.rstrip("/")
        self.agent_id = f"http:{self.base_url}"
        super().__init__(cfg, self.base_url)
        self._headers = {"Content-Type": "application/json", "Accept": "application/json", **self._headers}
        # target.otlp: tool calls from the agent's spans, joined by the traceparent sent with each message
        self._otlp = otlp_join.joiner(cfg.otlp)

    def check(self, timeout_s: float | None = None) -> None:
        """Fail fast with a :class:`UserError` when ``target.base_url`` cannot be reached.

        Any HTTP answer, even 404, proves the server is there; only a connection failure, a
        timeout (``timeout_s``, default ``target.timeout_s``) or a malformed URL is an error.
        """
        parsed = urllib.parse.urlsplit(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise UserError(f"not an http(s) URL: {self.cfg.base_url!r}", field="target.base_url",
                            fix="write it like http://127.0.0.1:8000")
        try:
            httpx.get(self.base_url + "/", headers=self._headers, timeout=timeout_s or self.cfg.timeout_s,
                      trust_env=self._trust_env, verify=transport.ssl_context())
        except Exception as exc:  # any transport failure means: not reachable as configured
            reason = redaction.scrub(one_line(str(exc) or type(exc).__name__))
            raise UserError(f"cannot reach {self.base_url} ({reason})", field="target.base_url",
                            fix="start the agent server or correct the URL and port") from None

    def reset(self) -> str:
        """Start a session: POST ``reset_path``; the id is read at ``session_id_path``."""
        url = self.base_url + self.cfg.reset_path
        counter = [0]
        doc = self._post(url, {}, counter)
        session_id = self._extract(doc, self.cfg.session_id_path, url, "session_id_path")
        if not isinstance(session_id, str | int) or isinstance(session_id, bool) or session_id == "":
            raise TargetError(redaction.scrub(f"POST {url}: session id at {self.cfg.session_id_path!r} is "
                                              f"{type(session_id).__name__} {one_line(json.dumps(session_id))}, "
                                              "not a string"))
        self._count(str(session_id), counter[0])
        return str(session_id)

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        """Send one user message; the reply is read at ``reply_path`` (cut at ``max_reply_chars``), its
        tool calls at ``tool_calls_path`` (or, with ``target.otlp``, from the agent's spans)."""
        if self._otlp is not None:
            return self._otlp.invoke(session_id, lambda: self._invoke(session_id, user_message))
        return self._invoke(session_id, user_message)

    def _invoke(self, session_id: str, user_message: str) -> AgentReply:
        path = self.cfg.invoke_path.replace("{session_id}", urllib.parse.quote(session_id, safe=""))
        url = self.base_url + path
        counter = [0]
        try:
            doc = self._post(url, {self.cfg.message_field: user_message}, counter, otlp_join.trace_headers())
        finally:
            self._count(session_id, counter[0])
        reply = self._extract(doc, self.cfg.reply_path, url, "reply_path")
        if not isinstance(reply, str):
            raise TargetError(redaction.scrub(f"POST {url}: reply at {self.cfg.reply_path!r} is "
                                              f"{type(reply).__name__} {one_line(json.dumps(reply))}, not a string"))
        return AgentReply(text=self._cut(reply), tool_calls=self._tool_calls(doc, url))

    def _tool_calls(self, doc: Any, url: str) -> list[AgentToolCall]:
        path = self.cfg.tool_calls_path
        if path is None:
            return []
        try:
            value = lookup_json_path(doc, path)
        except KeyError:
            return []  # a reply without tool calls: a text-only agent
        where = f"POST {url}: tool calls at {path!r} (target.tool_calls_path)"
        if value is None:
            return []
        if not isinstance(value, list):
            raise TargetError(redaction.scrub(f"{where} are {type(value).__name__}, not a list"))
        try:
            return [_tool_call(item, order) for order, item in enumerate(value)]
        except ValueError as exc:
            raise TargetError(redaction.scrub(f"{where}: {exc}")) from None

    def _post(self, url: str, body: dict[str, Any], counter: list[int], headers: dict[str, str] | None = None) -> Any:
        """POST ``body`` and parse the JSON answer, retrying transient failures inside the deadline."""
        headers = {**self._headers, **(headers or {})}
        return self._exchange(f"POST {url}", counter, self._attempt, url, body, headers)

    async def _attempt(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        """One try: the whole body (at most :data:`MAX_BODY_BYTES`) as JSON, or a classified TargetError."""
        try:
            client = transport.pooled_client(self._trust_env)
            async with client.stream("POST", url, json=body, headers=headers, timeout=self.cfg.timeout_s) as response:
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_BODY_BYTES:
                        raise TargetError(f"POST {url}: reply body over {MAX_BODY_BYTES} bytes (not read further)")
                    chunks.append(chunk)
        except (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
            what = "reply cut off or connection closed" if isinstance(exc, httpx.RemoteProtocolError) else \
                "connection failed"
            raise TransientTargetError(f"POST {url}: {what} ({type(exc).__name__}: "
                                       f"{one_line(str(exc) or 'no detail')})") from None
        except httpx.TimeoutException:
            raise TimeoutError from None
        data = b"".join(chunks)
        status = response.status_code
        if status >= 400:
            error = TransientTargetError if status >= 500 or status == _TRANSIENT_STATUS else TargetError
            detail = one_line(data.decode(errors="replace"))
            raise error(f"POST {url}: HTTP {status} {response.reason_phrase}: {detail}")
        try:
            return json.loads(data)
        except ValueError:
            raise TargetError(f"POST {url}: response is not JSON: {one_line(data.decode(errors='replace'))}") from None

    def _extract(self, doc: Any, path: str, url: str, field: str) -> Any:
        try:
            return lookup_json_path(doc, path)
        except KeyError as exc:
            raise TargetError(redaction.scrub(f"POST {url}: no {exc.args[0]!r} at JSON path {path!r} "
                                              f"(target.{field}) in {one_line(json.dumps(doc))}")) from None


def _tool_call(item: Any, order: int) -> AgentToolCall:
    """One reported tool call; OpenAI's ``{"function": {"name", "arguments"}}`` shape is read too."""
    if not isinstance(item, dict):
        raise ValueError(f"item {order} is {type(item).__name__}, not an object")
    function = item.get("function")
    source = function if isinstance(function, dict) else item
    name = source.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"item {order} has no string 'name'")
    arguments = source.get("arguments") or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = {"_raw": arguments}
    if not isinstance(arguments, dict):
        raise ValueError(f"item {order} ({name}): arguments are {type(arguments).__name__}, not an object")
    error = item.get("error")
    error_text = None if error in (None, False, "") else (error if isinstance(error, str) else json.dumps(error))
    position = item.get("order")
    # header secrets an agent echoes never reach the tables
    return AgentToolCall.make(name, redaction.scrub_value(arguments),
                         redaction.scrub_value(item.get("result", item.get("output"))),
                         error=None if error_text is None else redaction.scrub(error_text),
                         order=position if isinstance(position, int) and not isinstance(position, bool) else order)
