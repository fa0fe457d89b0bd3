"""Providers make one call each; see :mod:`adat.llm.providers.provider_registry` for how they are found."""

from adat.llm.providers.fake import FakeProvider
from adat.llm.providers.provider_registry import ProviderRegistry, default_registry, split_model

__all__ = ["FakeProvider", "ProviderRegistry", "default_registry", "split_model"]
