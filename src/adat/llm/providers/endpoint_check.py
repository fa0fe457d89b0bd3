"""Preflight's check of an OpenAI-compatible endpoint: the requests the SDK would make, over httpx.

The check runs before every command that talks to an ``openai/...`` model; loading the SDK for
it costs most of a second (its ~1,000 pydantic types) and a command whose stages are cached
never needs the SDK otherwise. So the two requests the SDK's check made go out over httpx (the
SDK's own transport): ``GET {base_url}/models`` with the key as a bearer token and, where a
server has no such route (404/405/501), one 1-token chat completion for the model. Every failure
a user can fix is one line naming ``llm.base_url``, ``llm.api_key_env`` or ``models``; the key
never appears.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import httpx

from adat.errors import UserError

OFFICIAL_BASE_URL = "https://api.openai.com/v1"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_NO_ROUTE = (404, 405, 501)


def check_endpoint(base_url: str | None, api_key: str, model: str, timeout_s: float, tokens_param: str) -> None:
    """Raise :class:`UserError` unless the endpoint at ``base_url`` answers within ``timeout_s`` per request."""
    base = (base_url or OFFICIAL_BASE_URL).rstrip("/")
    where = base_url or "api.openai.com"
    try:
        with _client(base, api_key, timeout_s) as http:
            response = http.get(f"{base}/models")
            if response.status_code in _NO_ROUTE:
                ping = {"model": model, "messages": [{"role": "user", "content": "ping"}], tokens_param: 1}
                response = http.post(f"{base}/chat/completions", json=ping)
    except httpx.TimeoutException:
        raise UserError(f"LLM endpoint {where} did not answer within {timeout_s:g} s", field="llm.base_url",
                        fix="start the server or correct llm.base_url") from None
    except (httpx.UnsupportedProtocol, httpx.InvalidURL, ValueError) as exc:  # not a URL
        raise UserError(f"LLM endpoint {where}: {_scrub(str(exc), api_key)}", field="llm.base_url",
                        fix="check llm.base_url") from None
    except (httpx.HTTPError, OSError):  # refused, reset by peer, bad status line
        raise UserError(f"cannot reach LLM endpoint {where}", field="llm.base_url",
                        fix="start the server or correct llm.base_url") from None
    if not response.is_success:
        raise _status_error(response, where, model, api_key)


def _client(base: str, api_key: str, timeout_s: float) -> httpx.Client:
    """An httpx client that sends the key as a bearer token, as the SDK does."""
    # As the SDK does for a local server: a loopback endpoint is never reached through a proxy.
    host = urllib.parse.urlsplit(base).hostname or ""
    return httpx.Client(timeout=timeout_s, trust_env=host not in _LOOPBACK,
                        headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"})


def _status_error(response: httpx.Response, where: str, model: str, api_key: str) -> UserError:
    status = response.status_code
    if status in (401, 403):
        return UserError(f"LLM endpoint {where} refused the API key (HTTP {status})", field="llm.api_key_env",
                         fix="export a valid key in that variable")
    if status == 404:
        return UserError(f"LLM endpoint {where} does not serve model {model!r} (HTTP 404)", field="models",
                         fix="use a model the endpoint serves")
    return UserError(_scrub(f"LLM endpoint {where} answered HTTP {status}: {_message(response)}", api_key),
                     field="llm.base_url", fix="check the server's log")


def _message(response: httpx.Response) -> str:
    """The error body's ``error.message`` (what the SDK shows), else its first 200 characters."""
    text = response.text
    try:
        body: Any = json.loads(text)
    except ValueError:
        return text[:200] or response.reason_phrase
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return str(message) if message else text[:200]


def _scrub(text: str, api_key: str) -> str:
    return text.replace(api_key, "***") if api_key else text


def post_chat(base_url: str | None, api_key: str, body: dict[str, Any], timeout_s: float) -> tuple[int, str | None, str]:
    """One chat completion over httpx, no retries: (HTTP status or 0, the answer's content, an error message).

    Used by the output-mode probe (:mod:`adat.llm.output_modes`), whose rejected forms are expected
    answers (400/422/500), not errors; the key never appears in the message.
    """
    base = (base_url or OFFICIAL_BASE_URL).rstrip("/")
    try:
        with _client(base, api_key, timeout_s) as http:
            response = http.post(f"{base}/chat/completions", json=body)
    except httpx.TimeoutException:
        return 0, None, f"no answer within {timeout_s:g} s"
    except httpx.HTTPError as exc:
        return 0, None, _scrub(f"{type(exc).__name__}: {exc}", api_key)
    try:
        payload: Any = response.json()
    except ValueError:
        payload = None
    if response.status_code != 200:
        error = payload.get("error") if isinstance(payload, dict) else None
        detail = error.get("message") if isinstance(error, dict) else (error or response.text[:200])
        return response.status_code, None, _scrub(str(detail), api_key)
    try:
        content = payload["choices"][0]["message"].get("content")
    except (TypeError, KeyError, IndexError, AttributeError):
        return response.status_code, None, "the answer has no choices[0].message"
    return 200, content if isinstance(content, str) else None, ""
