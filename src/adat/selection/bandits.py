"""Classic bandits for the instruction choice: UCB1, ε-greedy and Exp3 (the RQ2 ablation).

They keep the novelty order for the statement and choose the instruction by their own rules,
without the reuse penalty and without a prior (as in the paper's ablation). Their scalar reward
per attempt folds both signals AdaT2 keeps apart: 0 when the pair is not applicable, else the
verdict reward r (pass 1, inconclusive 0.5, fail 0; 0.5 when the test got no verdict), so the
expected reward of an instruction is θ_k·μ_k — the quantity AdaT2's score estimates.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from adat.selection.adat2 import NoveltyOrderSelector
from adat.selection.novelty import argmax_lexicographic

NO_VERDICT_REWARD = 0.5
UCB1_C = 2.0      # UCB1 exploration constant: mean + sqrt(c ln t / n_k)
EPSILON = 0.1     # ε-greedy: share of random choices
EXP3_GAMMA = 0.1  # Exp3: exploration share


def attempt_reward(applicable: bool, reward: float | None) -> float:
    """The scalar reward of one attempt for the classic bandits."""
    if not applicable:
        return 0.0
    return NO_VERDICT_REWARD if reward is None else reward


class _ScalarRewardSelector(NoveltyOrderSelector):
    """Keeps pull counts and reward sums per instruction."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pulls = np.zeros(len(self.instruction_ids), dtype=int)
        self.reward_sum = np.zeros(len(self.instruction_ids))

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        self.pulls[k] += 1
        self.reward_sum[k] += attempt_reward(applicable, reward)

    def _means(self, arms: np.ndarray) -> np.ndarray:
        pulls = self.pulls[arms]
        return np.where(pulls > 0, self.reward_sum[arms] / np.maximum(pulls, 1), 0.0)


class UCB1Selector(_ScalarRewardSelector):
    """UCB1 (Auer et al. 2002): mean + sqrt(c·ln t / n_k); untried instructions first."""

    name = "ucb1"

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        means = self._means(arms)
        pulls = self.pulls[arms]
        bonus = np.sqrt(UCB1_C * math.log(max(t, 2)) / np.maximum(pulls, 1))
        score = np.where(pulls > 0, means + bonus, np.inf)
        i = argmax_lexicographic(self.rng, score)
        return int(arms[i]), {"score": float(score[i]) if np.isfinite(score[i]) else "inf",
                              "mean": round(float(means[i]), 6), "pulls": int(pulls[i])}


class EpsilonGreedySelector(_ScalarRewardSelector):
    """ε-greedy: a random untried instruction with probability ε, else the best mean so far."""

    name = "epsilon-greedy"

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        means = self._means(arms)
        explore = bool(self.rng.random() < EPSILON)
        i = int(self.rng.integers(len(arms))) if explore else argmax_lexicographic(self.rng, means)
        return int(arms[i]), {"explore": explore, "mean": round(float(means[i]), 6)}


class Exp3Selector(NoveltyOrderSelector):
    """Exp3 (Auer et al. 2002b) over the statement's untried instructions.

    Probabilities mix the exponential weights with γ-uniform exploration, renormalised over the
    available arms; the chosen arm's weight grows by exp(γ·r̂/K) with r̂ = r/p (importance
    weighting). Log-weights keep long runs finite.
    """

    name = "exp3"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log_w = np.zeros(len(self.instruction_ids))
        self._chosen_p: float = 1.0

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        g = EXP3_GAMMA
        lw = self.log_w[arms]
        w = np.exp(lw - lw.max())
        p = (1.0 - g) * w / w.sum() + g / len(arms)
        i = int(self.rng.choice(len(arms), p=p / p.sum()))
        self._chosen_p = float(p[i])
        return int(arms[i]), {"p": round(self._chosen_p, 6)}

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        estimate = attempt_reward(applicable, reward) / self._chosen_p
        self.log_w[k] += EXP3_GAMMA * estimate / len(self.instruction_ids)
