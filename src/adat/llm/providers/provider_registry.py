"""Provider registry: ``provider/model`` -> a :class:`Provider` that makes the call.

Built-ins: ``openai`` (any OpenAI-compatible endpoint) and ``fake`` (scripted, for tests; register
scripts with :meth:`ProviderRegistry.register_fake`). Every other provider is a **plugin**: an
entry point of the group ``adat.providers`` (``[project.entry-points."adat.providers"]`` in a
distribution's ``pyproject.toml``) whose name is the provider prefix and whose object is a
provider class constructible with no arguments, with three optional class attributes: ``models``
(the model names it serves; any when absent), ``cacheable`` (False bypasses the response
cache; default True) and ``context_limited`` (False: the provider has no token window, so
``llm.context_tokens`` never cuts its requests; default True). A plugin is imported only when a role uses its prefix. The adat
distribution ships one, ``offline`` (the deterministic heuristic stand-in, a package of its own
that nothing here imports by name).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from adat import config
from adat.config import RunConfig
from adat.errors import UserError
from adat.llm.providers.fake import FakeOutputs, FakeProvider
from adat.llm.types import Provider

ProviderFactory = Callable[[str, RunConfig], Provider]

#: the entry-point group provider plugins register in
PLUGIN_GROUP = "adat.providers"
#: plugins the adat distribution registers itself: one that is missing means a partial install
SHIPPED_PLUGINS = ("offline",)
#: the module each built-in provider imports when it is first used
BUILTIN_MODULES = {"openai": "adat.llm.providers.openai_chat"}


@functools.cache
def plugins() -> dict[str, EntryPoint]:
    """Provider prefix -> its ``adat.providers`` entry point, as installed (read once: the
    installed distributions do not change under a running process)."""
    return {ep.name: ep for ep in entry_points(group=PLUGIN_GROUP)}


def split_model(spec: str) -> tuple[str, str]:
    """``"openai/gpt-4o-mini"`` -> ``("openai", "gpt-4o-mini")``; the model part may hold slashes."""
    provider, sep, model = spec.partition("/")
    if not sep or not provider or not model:
        raise UserError(f"model {spec!r} is not 'provider/model'", field="models",
                        fix="write e.g. openai/gpt-4o-mini or offline/heuristic")
    return provider, model


def provider_modules(cfg: RunConfig) -> list[str]:
    """The modules the built-in and plugin providers of ``cfg``'s roles and LLM target import on
    first use (a process about to run them can import them ahead, e.g. while it waits)."""
    specs = [*cfg.models.model_dump().values(), getattr(cfg.target, "model", "")]
    providers = {split_model(str(spec))[0] for spec in specs if spec}
    modules = {p: BUILTIN_MODULES.get(p) or (plugins()[p].module if p in plugins() else None) for p in providers}
    return sorted(m for m in modules.values() if m)


def openai_factory(model: str, cfg: RunConfig) -> Provider:
    """Build the openai provider; a missing key is a UserError naming the variable, never the key."""
    from adat.llm.providers.openai_chat import OpenAIProvider

    key = config.api_key(cfg.llm)
    if not key:
        env = cfg.llm.api_key_env
        raise UserError(f"no API key: environment variable {env} is not set", field="llm.api_key_env",
                        fix=f"export {env}=... or put it in .env (any non-empty value for a local server)")
    return OpenAIProvider(cfg.llm.base_url, key, cfg.llm.timeout_s)


def _not_available(prefix: str) -> UserError:
    return UserError(f"{prefix} provider not available", field="models",
                     fix="install the full adat package or choose an openai/<model>")


def load_plugin(prefix: str) -> ProviderFactory | None:
    """The provider factory of the ``adat.providers`` plugin ``prefix`` (importing it), or None when
    no plugin has that name. A shipped plugin that is not installed, or whose module is missing,
    is a one-line :class:`UserError`."""
    point = plugins().get(prefix)
    if point is None:
        if prefix in SHIPPED_PLUGINS:
            raise _not_available(prefix)
        return None
    try:
        provider_class = point.load()
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (point.module == missing or point.module.startswith(missing + ".")):
            raise  # the module exists but something it imports is missing: a real bug
        raise _not_available(prefix) from None
    models: tuple[str, ...] | None = getattr(provider_class, "models", None)

    def factory(model: str, cfg: RunConfig) -> Provider:
        if models is not None and model not in models:
            raise UserError(f"unknown {prefix} model {model!r}", field="models",
                            fix="use " + " or ".join(f"{prefix}/{m}" for m in models))
        provider: Provider = provider_class()
        return provider

    return factory


class ProviderRegistry:
    """Maps a provider prefix to a factory ``(model, cfg) -> Provider``."""

    def __init__(self) -> None:
        self._factories: dict[str, ProviderFactory] = {}
        self._fakes: dict[str, FakeProvider] = {}
        self.register("openai", openai_factory)
        self.register("fake", self._fake_factory)

    def register(self, prefix: str, factory: ProviderFactory) -> None:
        """Add or replace the factory for ``prefix`` (a provider with ``cacheable = False`` bypasses the
        response cache, as a plugin's does)."""
        self._factories[prefix] = factory

    def register_fake(self, name: str, outputs: FakeOutputs) -> FakeProvider:
        """Script ``fake/<name>``; returns the provider so tests can inspect its requests."""
        fake = FakeProvider(outputs, name=name)
        self._fakes[name] = fake
        return fake

    def known(self) -> list[str]:
        """Every provider prefix: registered, installed as a plugin or shipped as one."""
        return sorted({*self._factories, *plugins(), *SHIPPED_PLUGINS})

    def create(self, spec: str, cfg: RunConfig) -> tuple[str, str, Provider]:
        """``(provider, model, Provider)`` for a ``provider/model`` spec: a registered factory, else the
        plugin of that name (loaded once per registry)."""
        prefix, model = split_model(spec)
        if prefix not in self._factories and (plugin := load_plugin(prefix)) is not None:
            self._factories[prefix] = plugin
        factory = self._factories.get(prefix)
        if factory is None:
            raise UserError(f"unknown provider {prefix!r} in {spec!r}", field="models",
                            fix=f"use one of {', '.join(self.known())}")
        return prefix, model, factory(model, cfg)

    def _fake_factory(self, model: str, cfg: RunConfig) -> Provider:
        fake = self._fakes.get(model)
        if fake is None:
            known = ", ".join(sorted(self._fakes)) or "none registered"
            raise UserError(f"no fake provider named {model!r}", field="models",
                            fix=f"call registry.register_fake({model!r}, outputs) first (known: {known})")
        return fake


def default_registry() -> ProviderRegistry:
    """A fresh registry with the built-in providers and the installed plugins (no global state is
    shared but the list of installed entry points)."""
    return ProviderRegistry()
