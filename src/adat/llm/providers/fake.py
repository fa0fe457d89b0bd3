"""``fake/<name>``: scripted outputs for unit tests, through the same wrapper as real providers.

Outputs are a list (consumed in order), an iterator/generator, or a callable taking the
:class:`LLMRequest`. Each output may be a string (the content), an :class:`LLMResponse`, a dict,
list or pydantic model (sent as JSON content), or an exception instance (raised, e.g. a
:class:`TransientProviderError` to exercise retries).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from adat.llm.context_budget import rough_tokens
from adat.llm.types import LLMError, LLMRequest, LLMResponse

FakeOutput = str | LLMResponse | dict[str, Any] | list[Any] | BaseModel | BaseException
FakeOutputs = Iterable[FakeOutput] | Callable[[LLMRequest], FakeOutput]


class FakeProvider:
    """Answers from a script; keeps every request it got in :attr:`requests`."""

    def __init__(self, outputs: FakeOutputs, *, name: str = "fake") -> None:
        self.name = name
        self.requests: list[LLMRequest] = []
        self._next: Callable[[LLMRequest], FakeOutput]
        if callable(outputs) and not isinstance(outputs, Iterable):
            self._next = outputs
        else:
            script = iter(outputs)
            self._next = lambda _request: next(script)

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        try:
            out = self._next(request)
        except StopIteration:
            raise LLMError(f"fake provider {self.name!r} ran out of scripted outputs "
                           f"after {len(self.requests) - 1} calls") from None
        return self._to_response(out, request)

    @staticmethod
    def _to_response(out: FakeOutput, request: LLMRequest) -> LLMResponse:
        if isinstance(out, BaseException):
            raise out
        if isinstance(out, LLMResponse):
            return out
        if isinstance(out, BaseModel):
            content = out.model_dump_json()
        elif isinstance(out, dict | list):
            content = json.dumps(out, ensure_ascii=False)
        elif isinstance(out, str):
            content = out
        else:
            raise TypeError(f"fake output must be str, LLMResponse, dict, list, model or exception, "
                            f"not {type(out).__name__}")
        prompt_text = json.dumps(request.messages, ensure_ascii=False)
        return LLMResponse(content=content, input_tokens=rough_tokens(prompt_text),
                           output_tokens=rough_tokens(content))
