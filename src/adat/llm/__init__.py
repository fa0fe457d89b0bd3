"""The LLM layer: one client wrapper (:class:`LLMClient`) over providers that only make the call.

Models are named ``provider/model`` (``openai/...``, ``offline/heuristic``, ``fake/...``) and picked
per role from the run config; prompts are checked template files in ``catalogs/prompts/``.
"""

from adat.llm.client import LLMClient
from adat.llm.prompts import PromptTemplate, fence, load_prompt
from adat.llm.providers.fake import FakeProvider
from adat.llm.providers.provider_registry import ProviderRegistry, default_registry, split_model
from adat.llm.types import LLMError, LLMRequest, LLMResponse, Provider, ToolCall, TransientProviderError

__all__ = [
    "FakeProvider",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "LLMResponse",
    "PromptTemplate",
    "Provider",
    "ProviderRegistry",
    "ToolCall",
    "TransientProviderError",
    "default_registry",
    "fence",
    "load_prompt",
    "split_model",
]
