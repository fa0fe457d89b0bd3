"""Provider registry: ``provider/model`` -> a :class:`Provider` that makes the call.

Built-ins: ``openai`` (any OpenAI-compatible endpoint), ``fake`` (scripted, for tests; register
scripts with :meth:`ProviderRegistry.register_fake`) and ``offline`` (the deterministic
heuristic stand-in, imported lazily from ``adat.offline.provider``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from adat import config
from adat.config import RunConfig
from adat.errors import UserError
from adat.llm.providers.fake import FakeOutputs, FakeProvider
from adat.llm.types import Provider

ProviderFactory = Callable[[str, RunConfig], Provider]

OFFLINE_PROVIDER = "adat.offline.provider:OfflineHeuristicProvider"
#: the module each built-in provider imports when it is first used
PROVIDER_MODULES = {"openai": "adat.llm.providers.openai_chat", "offline": OFFLINE_PROVIDER.partition(":")[0]}


@dataclass(frozen=True)
class _Entry:
    factory: ProviderFactory
    cacheable: bool


def split_model(spec: str) -> tuple[str, str]:
    """``"openai/gpt-4o-mini"`` -> ``("openai", "gpt-4o-mini")``; the model part may hold slashes."""
    provider, sep, model = spec.partition("/")
    if not sep or not provider or not model:
        raise UserError(f"model {spec!r} is not 'provider/model'", field="models",
                        fix="write e.g. openai/gpt-4o-mini or offline/heuristic")
    return provider, model


def provider_modules(cfg: RunConfig) -> list[str]:
    """The modules the built-in providers of ``cfg``'s roles and LLM target import on first use (a
    process about to run them can import them ahead, e.g. while it waits)."""
    specs = [*cfg.models.model_dump().values(), getattr(cfg.target, "model", "")]
    providers = {split_model(str(spec))[0] for spec in specs if spec}
    return sorted(PROVIDER_MODULES[p] for p in providers if p in PROVIDER_MODULES)


def openai_factory(model: str, cfg: RunConfig) -> Provider:
    """Build the openai provider; a missing key is a UserError naming the variable, never the key."""
    from adat.llm.providers.openai_chat import OpenAIProvider

    key = config.api_key(cfg.llm)
    if not key:
        env = cfg.llm.api_key_env
        raise UserError(f"no API key: environment variable {env} is not set", field="llm.api_key_env",
                        fix=f"export {env}=... or put it in .env (any non-empty value for a local server)")
    return OpenAIProvider(cfg.llm.base_url, key, cfg.llm.timeout_s)


def offline_factory(model: str, cfg: RunConfig) -> Provider:
    """The offline/heuristic stand-in, imported only when a role uses it."""
    module_name, _, class_name = OFFLINE_PROVIDER.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (module_name == missing or module_name.startswith(missing + ".")):
            raise  # the module exists but something it imports is missing: a real bug
        raise UserError("offline provider not available", field="models",
                        fix="install the full adat package or choose an openai/<model>") from None
    if model != "heuristic":
        raise UserError(f"unknown offline model {model!r}", field="models", fix="use offline/heuristic")
    provider: Provider = getattr(module, class_name)()
    return provider


class ProviderRegistry:
    """Maps a provider prefix to a factory ``(model, cfg) -> Provider``."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._fakes: dict[str, FakeProvider] = {}
        self.register("openai", openai_factory)
        self.register("fake", self._fake_factory)
        # Deterministic and local: caching it would only serve stale answers after code changes.
        self.register("offline", offline_factory, cacheable=False)

    def register(self, prefix: str, factory: ProviderFactory, *, cacheable: bool = True) -> None:
        """Add or replace the factory for ``prefix``; ``cacheable=False`` bypasses the response cache."""
        self._entries[prefix] = _Entry(factory, cacheable)

    def register_fake(self, name: str, outputs: FakeOutputs) -> FakeProvider:
        """Script ``fake/<name>``; returns the provider so tests can inspect its requests."""
        fake = FakeProvider(outputs, name=name)
        self._fakes[name] = fake
        return fake

    def known(self) -> list[str]:
        return sorted(self._entries)

    def cacheable(self, prefix: str) -> bool:
        entry = self._entries.get(prefix)
        return entry.cacheable if entry else True

    def create(self, spec: str, cfg: RunConfig) -> tuple[str, str, Provider]:
        """``(provider, model, Provider)`` for a ``provider/model`` spec."""
        prefix, model = split_model(spec)
        entry = self._entries.get(prefix)
        if entry is None:
            raise UserError(f"unknown provider {prefix!r} in {spec!r}", field="models",
                            fix=f"use one of {', '.join(self.known())}")
        return prefix, model, entry.factory(model, cfg)

    def _fake_factory(self, model: str, cfg: RunConfig) -> Provider:
        fake = self._fakes.get(model)
        if fake is None:
            known = ", ".join(sorted(self._fakes)) or "none registered"
            raise UserError(f"no fake provider named {model!r}", field="models",
                            fix=f"call registry.register_fake({model!r}, outputs) first (known: {known})")
        return fake


def default_registry() -> ProviderRegistry:
    """A fresh registry with the built-in providers (no global state is shared)."""
    return ProviderRegistry()
