"""Cost of a call from a price table in USD per million tokens (input, output).

Built-in list prices cover a few common OpenAI models; ``llm.prices_usd_per_mtok`` in the run
config overrides or extends them (keys are ``provider/model`` or the bare model name). The
``offline`` and ``fake`` providers cost nothing unless the config prices them. A model with no price costs 0 and its row says
``priced=False`` so cost metrics can tell "free" from "unknown".
"""

from __future__ import annotations

import re

#: USD per million tokens (input, output); list prices, checked 2025. Override in the run config.
BUILTIN_PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}

FREE_PROVIDERS = frozenset({"offline", "fake"})

# Dated snapshots ("gpt-4o-2024-08-06", "o3-mini-2025-01-31") cost what their family costs.
_SNAPSHOT_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$|-\d{4}$")


def price_per_mtok(provider: str, model: str,
                   overrides: dict[str, tuple[float, float]]) -> tuple[float, float] | None:
    """(input, output) USD per million tokens, or None when the model has no known price."""
    for name in (f"{provider}/{model}", model, _SNAPSHOT_SUFFIX.sub("", model)):
        if name in overrides:
            return overrides[name]  # the config's price wins, even for a free provider (what-if costs, tests)
    if provider in FREE_PROVIDERS:
        return (0.0, 0.0)
    for name in (model, _SNAPSHOT_SUFFIX.sub("", model)):
        if name in BUILTIN_PRICES_USD_PER_MTOK:
            return BUILTIN_PRICES_USD_PER_MTOK[name]
    return None


def call_cost_usd(provider: str, model: str, input_tokens: int, output_tokens: int,
                  overrides: dict[str, tuple[float, float]]) -> tuple[float, bool]:
    """(cost in USD, whether the model had a price). Unknown models cost 0."""
    price = price_per_mtok(provider, model, overrides)
    if price is None:
        return 0.0, False
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, True
