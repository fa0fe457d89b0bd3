"""Wire-level types shared by the LLM client and its providers.

Providers only make the call: they turn an :class:`LLMRequest` into an :class:`LLMResponse`.
Retries, caching, validation, accounting and logging belong to :class:`adat.llm.client.LLMClient`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from adat.config import RunConfig

_Answer = TypeVar("_Answer", bound=BaseModel)


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    arguments: str = Field(description="JSON text of the arguments, exactly as the model wrote it")


class LLMRequest(BaseModel):
    """One chat-completion request, after the prompt was rendered."""

    model_config = ConfigDict(extra="forbid")

    role: str = Field(description="tester role (planner, driver, ...) or 'agent' for an agent host")
    provider: str
    model: str
    messages: list[dict[str, Any]]
    response_schema: dict[str, Any] | None = Field(None, description="JSON schema of the expected output")
    schema_name: str | None = None
    schema_strict: bool = Field(True, description="ask for strict json_schema decoding (OpenAI 'strict')")
    output_mode: str = Field("json_schema", description="how the schema is asked for (adat.llm.output_modes.MODES)")
    tools: list[dict[str, Any]] | None = Field(None, description="OpenAI function-tool definitions")
    temperature: float = 0.0
    max_tokens: int = 2048
    prompt_id: str = ""
    prompt_version: str = ""
    # The structured inputs the prompt was rendered from. Real providers ignore them; the
    # offline/heuristic stand-in answers from them (never from anything a black-box tester
    # could not see). Excluded from the cache key because the rendered messages carry them.
    variables: dict[str, Any] = Field(default_factory=dict)


class LLMResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str = "stop"


class Provider(Protocol):
    """Makes one call. Raises :class:`TransientProviderError` for what is worth retrying."""

    def complete(self, request: LLMRequest) -> LLMResponse: ...


class TransientProviderError(Exception):
    """429, 5xx, timeout or connection error: the client retries with backoff."""

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class LLMError(Exception):
    """A call that failed for good (retries exhausted, invalid output after one repair)."""


class TesterLLM(Protocol):
    """What the tester's code (stages, TDAD smiths, baselines, the auditor) needs of an LLM client.

    :class:`adat.llm.client.LLMClient` is the implementation; tests pass scripted stand-ins.
    """

    @property
    def cfg(self) -> RunConfig:
        """The run config: ``models.for_role(role)`` names the model a role's calls go to."""
        ...

    @property
    def prompts_dir(self) -> Path:
        """The directory of the prompt files the client renders."""
        ...

    def structured(self, role: str, prompt_id: str, variables: dict[str, Any], output: type[_Answer],
                   *, cache_tag: str = "") -> _Answer:
        """Render ``prompt_id`` for ``role``; the answer validated into ``output``."""
        ...

    def text(self, role: str, prompt_id: str, variables: dict[str, Any], *, cache_tag: str = "") -> str:
        """Render ``prompt_id`` for ``role``; the answer as text."""
        ...
