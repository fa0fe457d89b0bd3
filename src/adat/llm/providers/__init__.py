"""Providers make one call each; see :mod:`adat.llm.providers.provider_registry` for how they are found."""
