"""A stand-in for the offline plugin, used to test how the registry loads provider plugins."""

from __future__ import annotations

import json

from adat.llm.types import LLMRequest, LLMResponse


class StubOffline:
    """Answers from the structured variables, like the real offline/heuristic provider."""

    instances = 0
    models = ("heuristic",)
    cacheable = False

    def __init__(self) -> None:
        StubOffline.instances += 1
        self.calls = 0

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        return LLMResponse(content=json.dumps({"answer": len(request.variables["reply"]), "note": "offline"}))
