"""Preflight's check of an OpenAI-compatible endpoint: the requests the SDK would make, over urllib.

The check runs before every command that talks to an ``openai/...`` model; loading the SDK for
it costs most of a second (its ~1,000 pydantic types) and a command whose stages are cached
never needs the SDK otherwise. So the two requests the SDK's check made go out from the standard
library: ``GET {base_url}/models`` with the key as a bearer token and, where a server has no
such route (404/405/501), one 1-token chat completion for the model. Every failure a user can
fix is one line naming ``llm.base_url``, ``llm.api_key_env`` or ``models``; the key never appears.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from adat.errors import UserError

OFFICIAL_BASE_URL = "https://api.openai.com/v1"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_NO_ROUTE = (404, 405, 501)


def check_endpoint(base_url: str | None, api_key: str, model: str, timeout_s: float, tokens_param: str) -> None:
    """Raise :class:`UserError` unless the endpoint at ``base_url`` answers within ``timeout_s`` per request."""
    base = (base_url or OFFICIAL_BASE_URL).rstrip("/")
    where = base_url or "api.openai.com"
    host = urllib.parse.urlsplit(base).hostname or ""
    # As the SDK does for a local server: a loopback endpoint is never reached through a proxy.
    opener = urllib.request.build_opener(*([urllib.request.ProxyHandler({})] if host in _LOOPBACK else []))
    headers = {"Authorization": f"Bearer {api_key}", "Accept": "application/json"}
    try:
        try:
            _send(opener, urllib.request.Request(f"{base}/models", headers=headers, method="GET"), timeout_s)
        except urllib.error.HTTPError as exc:
            if exc.code not in _NO_ROUTE:
                raise
            ping = {"model": model, "messages": [{"role": "user", "content": "ping"}], tokens_param: 1}
            _send(opener, urllib.request.Request(f"{base}/chat/completions", data=json.dumps(ping).encode(),
                                                 headers={**headers, "Content-Type": "application/json"},
                                                 method="POST"), timeout_s)
    except urllib.error.HTTPError as exc:
        raise _status_error(exc, where, model, api_key) from None
    except TimeoutError:
        raise _timeout(where, timeout_s) from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise _timeout(where, timeout_s) from None
        raise UserError(f"cannot reach LLM endpoint {where}", field="llm.base_url",
                        fix="start the server or correct llm.base_url") from None
    except OSError:  # reset by peer, bad status line
        raise UserError(f"cannot reach LLM endpoint {where}", field="llm.base_url",
                        fix="start the server or correct llm.base_url") from None
    except ValueError as exc:  # not a URL
        raise UserError(f"LLM endpoint {where}: {_scrub(str(exc), api_key)}", field="llm.base_url",
                        fix="check llm.base_url") from None


def _send(opener: urllib.request.OpenerDirector, request: urllib.request.Request, timeout_s: float) -> None:
    with opener.open(request, timeout=timeout_s) as response:
        response.read()


def _timeout(where: str, timeout_s: float) -> UserError:
    return UserError(f"LLM endpoint {where} did not answer within {timeout_s:g} s", field="llm.base_url",
                     fix="start the server or correct llm.base_url")


def _status_error(exc: urllib.error.HTTPError, where: str, model: str, api_key: str) -> UserError:
    status = exc.code
    if status in (401, 403):
        return UserError(f"LLM endpoint {where} refused the API key (HTTP {status})", field="llm.api_key_env",
                         fix="export a valid key in that variable")
    if status == 404:
        return UserError(f"LLM endpoint {where} does not serve model {model!r} (HTTP 404)", field="models",
                         fix="use a model the endpoint serves")
    return UserError(_scrub(f"LLM endpoint {where} answered HTTP {status}: {_message(exc)}", api_key),
                     field="llm.base_url", fix="check the server's log")


def _message(exc: urllib.error.HTTPError) -> str:
    """The error body's ``error.message`` (what the SDK shows), else its first 200 characters."""
    try:
        text = exc.read().decode(errors="replace")
    except OSError:
        return str(exc.reason)
    try:
        body: Any = json.loads(text)
    except ValueError:
        return text[:200] or str(exc.reason)
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
    import httpx

    base = (base_url or OFFICIAL_BASE_URL).rstrip("/")
    host = urllib.parse.urlsplit(base).hostname or ""
    try:
        with httpx.Client(timeout=timeout_s, trust_env=host not in _LOOPBACK) as http:
            response = http.post(f"{base}/chat/completions", json=body,
                                 headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"})
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
