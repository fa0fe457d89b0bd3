"""A stand-in for adat.offline.provider used to test how the registry loads the offline provider."""

from __future__ import annotations

import json

from adat.llm.types import LLMRequest, LLMResponse


class StubOffline:
    """Answers from the structured variables, like the real offline/heuristic provider."""

    instances = 0

    def __init__(self) -> None:
        StubOffline.instances += 1
        self.calls = 0

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        return LLMResponse(content=json.dumps({"answer": len(request.variables["reply"]), "note": "offline"}))
