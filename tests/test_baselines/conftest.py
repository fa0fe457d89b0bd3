"""Fixtures for the baseline tests: scripted roles through the real LLMClient, a keyword embedder."""

from __future__ import annotations

import numpy as np
import pytest

from adat.records import Trace
from tests.test_stages.conftest import cfg, make_trace, roles  # noqa: F401  (cfg, roles: fixtures reused here)

#: activity keyword -> embedding axis; a reply's vector counts the keywords it contains
ACTIVITIES = ("verify", "confirm", "cancelled", "cannot", "anything else")


def keyword_embed(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in for the sentence embedder: one axis per activity keyword, plus a
    small axis of its own for a text with none (so unrelated replies stay apart)."""
    rows = np.zeros((len(texts), len(ACTIVITIES) + len(texts)))
    for i, text in enumerate(texts):
        low = text.lower()
        hits = [k for k, word in enumerate(ACTIVITIES) if word in low]
        for k in hits:
            rows[i, k] = 1.0
        if not hits:
            rows[i, len(ACTIVITIES) + i] = 1.0
    return rows


@pytest.fixture
def traces() -> list[Trace]:
    """Two cancellations (one refused) and a session that repeats the identity question."""
    return [
        make_trace("tr-1", "Cancel order #W1000001", "Please verify your identity with your email.",
                   "ann@example.com", "Order #W1000001 is pending. Do you confirm the cancellation?",
                   "yes", "Order #W1000001 has been cancelled."),
        make_trace("tr-2", "I want to cancel #W1000002", "Please verify your identity with your email.",
                   "ann@example.com", "Sorry, I cannot cancel order #W1000002 because it is delivered."),
        make_trace("tr-3", "hello", "Please verify your identity with your email first.",
                   "bob@nowhere.org", "I could not verify that email; please verify again.",
                   "ann@example.com", "Thanks. Is there anything else I can help with?"),
    ]
