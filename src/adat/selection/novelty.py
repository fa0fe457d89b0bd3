"""Statement novelty ν(h) = 1 − max_{h'∈H+} cos(e_h, e_h') and seeded tie-breaking (DESIGN §5)."""

from __future__ import annotations

import numpy as np

#: Scores closer than this count as tied (floating-point noise must not decide a choice).
TIE_TOLERANCE = 1e-12


class NoveltyTracker:
    """Keeps max cos to H+ per statement, updated in O(S·d) each time H+ grows.

    ``embeddings`` has one row per statement; rows are normalised here so cosines are dot products.
    """

    def __init__(self, embeddings: np.ndarray) -> None:
        emb = np.asarray(embeddings, dtype=np.float64)
        if emb.ndim != 2:
            raise ValueError("embeddings must be a 2-d array, one row per statement")
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        self.emb = emb / np.where(norms > 0, norms, 1.0)
        self.in_hplus = np.zeros(len(emb), dtype=bool)
        self._max_cos = np.full(len(emb), -np.inf)

    def add(self, statement: int) -> None:
        """Record that ``statement`` now has a transformed test (joins H+)."""
        if self.in_hplus[statement]:
            return
        self.in_hplus[statement] = True
        np.maximum(self._max_cos, self.emb @ self.emb[statement], out=self._max_cos)

    def novelty(self, statements: np.ndarray | None = None) -> np.ndarray:
        """ν for the given statement indices (all when None): 1 if H+ is empty, 0 on H+."""
        idx = np.arange(len(self.emb)) if statements is None else np.asarray(statements, dtype=int)
        if not self.in_hplus.any():
            return np.ones(len(idx))
        nu = 1.0 - self._max_cos[idx]
        nu[self.in_hplus[idx]] = 0.0
        return nu


def argmax_lexicographic(rng: np.random.Generator, *keys: np.ndarray) -> int:
    """Index of the best entry by ``keys[0]``, ties by ``keys[1]``, …, remaining ties at random."""
    alive = np.arange(len(keys[0]))
    for key in keys:
        values = np.asarray(key, dtype=float)[alive]
        best = values.max()
        tolerance = TIE_TOLERANCE * max(1.0, abs(best)) if np.isfinite(best) else 0.0
        alive = alive[values >= best - tolerance]
        if len(alive) == 1:
            return int(alive[0])
    return int(alive[rng.integers(len(alive))])
