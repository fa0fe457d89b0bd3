"""``openai/<model>``: any OpenAI-compatible chat-completions endpoint via the real ``openai`` client.

The provider only makes the call, in the structured-output form the request names
(``request.output_mode``, :mod:`adat.llm.output_modes`). The SDK's own retries are off (``max_retries=0``) because
:class:`adat.llm.client.LLMClient` owns retrying; 408/409/429/5xx, timeouts and connection errors
become :class:`TransientProviderError` (with the ``Retry-After`` delay when the server sent one),
every other API error becomes :class:`LLMError`. The API key lives only inside the SDK client: it
is scrubbed from every message this module raises and never chained into a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from adat.llm.types import LLMError, LLMRequest, LLMResponse, ToolCall, TransientProviderError

_TRANSIENT_STATUS = frozenset({408, 409, 429})


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or HTTP date), if any."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        with contextlib.suppress(TypeError, ValueError):  # absent or not a number
            return max(0.0, float(headers.get(name)) / scale)
    with contextlib.suppress(TypeError, ValueError):  # absent or not an HTTP date
        when = parsedate_to_datetime(headers.get("retry-after"))
        return max(0.0, (when.replace(tzinfo=when.tzinfo or UTC) - datetime.now(UTC)).total_seconds())
    return None


#: builds (under the lock: once) the one SDK client per (endpoint, key, timeout) in a process
_CLIENTS_LOCK = threading.Lock()


@functools.cache
def _shared_client(base_url: str | None, api_key: str, timeout_s: float) -> Any:
    # Building a client loads the TLS trust store and a connection pool (~0.5 s), and a run makes a
    # provider per role and per stage; the client is thread-safe. The SDK itself is imported on
    # first use too (~0.5 s, not needed offline).
    import openai

    return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)


class OpenAIProvider:
    """Chat completions against ``base_url`` (None = api.openai.com).

    The SDK is loaded, and its client built, with the first call (:meth:`complete`) or
    :meth:`warm`: building the provider (preflight builds one per role) and :meth:`check` need neither.
    """

    def __init__(self, base_url: str | None, api_key: str, timeout_s: float) -> None:
        self._secret = api_key
        self._timeout_s = timeout_s
        self.base_url = base_url
        # api.openai.com's newer models reject max_tokens; many local servers only know it.
        official = base_url is None or "api.openai.com" in base_url
        self._tokens_param = "max_completion_tokens" if official else "max_tokens"

    def warm(self) -> Any:
        """Load the SDK and build the shared client now rather than in the first call; returns the client."""
        with _CLIENTS_LOCK:
            return _shared_client(self.base_url, self._secret, self._timeout_s)

    def complete(self, request: LLMRequest) -> LLMResponse:
        from adat.llm.output_modes import structured_fields

        kwargs: dict[str, Any] = {"model": request.model, "messages": request.messages,
                                  "temperature": request.temperature, self._tokens_param: request.max_tokens}
        if request.response_schema is not None:
            kwargs.update(structured_fields(request.output_mode, request.messages,
                                            request.schema_name or "output", request.response_schema,
                                            request.schema_strict))
        if request.tools:
            kwargs["tools"] = request.tools
        client = self.warm()
        import openai as oa

        try:
            completion = client.chat.completions.create(**kwargs)
        except oa.APITimeoutError:
            raise TransientProviderError(f"timeout calling {request.model}") from None
        except oa.APIConnectionError as exc:
            raise TransientProviderError(self._scrub(f"connection error calling {request.model}: {exc}")) from None
        except oa.APIStatusError as exc:
            status = exc.status_code
            message = self._scrub(f"HTTP {status} from {request.model}: {exc.message}")
            # as the SDK decides (it is off: the client retries): the server's x-should-retry wins
            should_retry = exc.response.headers.get("x-should-retry")
            if should_retry == "false":
                raise LLMError(message) from None
            if should_retry == "true" or status in _TRANSIENT_STATUS or status >= 500:
                raise TransientProviderError(message, retry_after_s=parse_retry_after(exc.response.headers)) from None
            raise LLMError(message) from None
        except oa.OpenAIError as exc:
            raise LLMError(self._scrub(f"{type(exc).__name__} calling {request.model}: {exc}")) from None
        return self._to_response(completion)

    def check(self, model: str, timeout_s: float) -> None:
        """Raise :class:`UserError` unless the endpoint answers within ``timeout_s`` (no retries): the
        requests of :func:`adat.llm.providers.endpoint_check.check_endpoint`, without the SDK."""
        from adat.llm.providers.endpoint_check import check_endpoint

        check_endpoint(self.base_url, self._secret, model, timeout_s, self._tokens_param)

    def output_mode(self, cfg: Any, model: str, *, force: bool = False) -> Any:
        """The structured-output form ``model`` takes at this endpoint (:func:`adat.llm.output_modes.resolve_mode`:
        configured, cached in the data dir, or probed now); a :class:`~adat.llm.output_modes.ProbeResult`."""
        from adat.llm.output_modes import resolve_mode

        return resolve_mode(cfg, model, self._secret, self._timeout_s, force=force)

    @staticmethod
    def _to_response(completion: Any) -> LLMResponse:
        if not completion.choices:
            raise LLMError("the endpoint returned no choices")
        choice = completion.choices[0]
        message = choice.message
        calls = [ToolCall(id=tc.id, name=tc.function.name, arguments=tc.function.arguments or "")
                 for tc in message.tool_calls or []
                 if getattr(tc, "function", None) is not None]  # custom (non-function) tools are not used by adat
        usage = completion.usage
        return LLMResponse(
            content=message.content,
            tool_calls=calls,
            input_tokens=(usage.prompt_tokens or 0) if usage else 0,
            output_tokens=(usage.completion_tokens or 0) if usage else 0,
            finish_reason=choice.finish_reason or "stop",
        )

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIProvider(base_url={self.base_url!r})"
