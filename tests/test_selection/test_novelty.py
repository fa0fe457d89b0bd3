"""Novelty ν(h) = 1 − max cos to H+, and seeded tie-breaking."""

from __future__ import annotations

import numpy as np
import pytest

from adat.selection import NoveltyTracker
from adat.selection.novelty import argmax_lexicographic


def test_novelty_is_one_when_h_plus_is_empty() -> None:
    tracker = NoveltyTracker(np.random.default_rng(1).normal(size=(5, 4)))
    assert tracker.novelty().tolist() == [1.0] * 5


def test_novelty_is_zero_on_h_plus_and_one_minus_max_cos_elsewhere() -> None:
    emb = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [-1.0, 0.0]])
    tracker = NoveltyTracker(emb)
    tracker.add(0)
    nu = tracker.novelty()
    assert nu[0] == 0.0
    assert nu[1] == pytest.approx(1.0)                 # orthogonal
    assert nu[2] == pytest.approx(1 - 1 / np.sqrt(2))
    assert nu[3] == pytest.approx(2.0)                 # opposite: cos = −1
    tracker.add(1)
    nu = tracker.novelty(np.array([2, 3, 1]))
    assert nu.tolist() == pytest.approx([1 - 1 / np.sqrt(2), 1.0, 0.0])  # max over H+ = {0, 1}


def test_lexicographic_argmax_breaks_ties_by_later_keys_then_seeded_random() -> None:
    rng = np.random.default_rng(0)
    assert argmax_lexicographic(rng, np.array([1.0, 2.0, 2.0]), np.array([9.0, 0.1, 0.2])) == 2
    picks = {argmax_lexicographic(np.random.default_rng(s), np.zeros(4)) for s in range(40)}
    assert picks == {0, 1, 2, 3}
    again = [argmax_lexicographic(np.random.default_rng(7), np.zeros(4)) for _ in range(3)]
    assert len(set(again)) == 1
