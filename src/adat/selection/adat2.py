"""AdaT2's selector and its posterior-keeping variants: cold start, static ranking, Thompson.

The statement comes from the novelty order (:mod:`adat.selection.block_walk`); the instruction,
among the statement's untried pairs, maximises ``Qθ_k(q_t) · Qμ_k(q_t) · γ^{u_k}`` (DESIGN §5).
Ties — every score is 0 at t = 1, where q_1 = 0 — fall to ``E[θ_k]·E[μ_k]·γ^{u_k}`` (the
prior, early on), then to a seeded random draw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adat.config import AdaT2Selection
from adat.selection.block_walk import BlockWalkSelector
from adat.selection.novelty import argmax_lexicographic
from adat.selection.posteriors import BetaPosteriors, quantile_level, theta_prior

_SHOWN_ALTERNATIVES = 3  # how many runner-up instructions a scores snapshot lists


class NoveltyOrderSelector(BlockWalkSelector):
    """Statement by novelty; subclasses choose the instruction for it."""

    def _choose(self, eligible: np.ndarray, t: int) -> tuple[int, int, dict[str, Any]]:
        nu = self.novelty.novelty(eligible)  # the highest ν, ties at random (seeded)
        tied = eligible[nu >= nu.max() - 1e-12]
        h = int(tied[self.rng.integers(len(tied))]) if len(tied) > 1 else int(tied[0])
        k, scores = self._choose_instruction(h, self.untried(h), t)
        return h, k, {"novelty": round(float(nu.max()), 6), **scores}

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        raise NotImplementedError

    def _top(self, arms: np.ndarray, values: np.ndarray, chosen: int) -> list[list[Any]]:
        order = np.argsort(-values, kind="stable")[: _SHOWN_ALTERNATIVES + 1]
        return [[self.instruction_ids[arms[i]], round(float(values[i]), 6)] for i in order
                if arms[i] != chosen][:_SHOWN_ALTERNATIVES]


class AdaT2Selector(NoveltyOrderSelector):
    """AdaT2 (Bayes-UCB on two Beta posteriors with a reuse penalty) and its variants, by
    ``cfg.name``: ``adat2`` and ``cold-start`` (Beta(1, 1) priors), ``static`` (posteriors never
    updated) and ``thompson`` (one draw from each posterior instead of the two quantiles).
    """

    cfg: AdaT2Selection

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.name = self.cfg.name
        self.theta = theta_prior(self.instructions, weight=self.cfg.prior_weight, history=self.priors,
                                 cold_start=self.name == "cold-start")
        self.mu = BetaPosteriors.uniform(len(self.instructions))

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        penalty = self.cfg.gamma ** self.block_tests[self.block, arms] * self.weights(h, arms)
        snapshot: dict[str, Any] = {}
        if self.name == "thompson":
            score = self.theta.sample(self.rng, arms) * self.mu.sample(self.rng, arms) * penalty
        else:
            q = quantile_level(t, self.budget, self.cfg.c)
            score = self.theta.quantile(q, arms) * self.mu.quantile(q, arms) * penalty
            snapshot["q"] = round(q, 6)
        mean_score = self.theta.mean(arms) * self.mu.mean(arms) * penalty
        i = argmax_lexicographic(self.rng, score, mean_score)
        k = int(arms[i])
        snapshot.update({
            "score": round(float(score[i]), 6),
            "theta": [round(float(self.theta.a[k]), 3), round(float(self.theta.b[k]), 3)],
            "mu": [round(float(self.mu.a[k]), 3), round(float(self.mu.b[k]), 3)],
            "u": int(self.block_tests[self.block, k]),
            "top": self._top(arms, score, k),
        })
        return k, snapshot

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        if self.name == "static":
            return
        if not applicable:
            self.theta.add(k, 0.0, 1.0)
            return
        self.theta.add(k, 1.0, 0.0)
        if reward is not None:
            self.mu.add(k, reward, 1.0 - reward)
