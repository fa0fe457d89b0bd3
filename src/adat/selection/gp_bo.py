"""GP-BO: Bayesian optimisation with a Gaussian process over statement × instruction pairs.

The objective of a pair is its attempt reward (0 not applicable, else the verdict reward r; 0.5
without a verdict), the quantity AdaT2's score estimates. The kernel is a product:

* statements: ``exp(−(1 − cos(e_h, e_h')) / ℓ)`` on the sentence embeddings;
* instructions: 1 for the same instruction, ``(1 + ρ)/2`` for another of the same factor,
  ``ρ`` otherwise (a one-hot with a shared component, plus the catalog's factor as a feature).

The prior mean of a pair is E[θ_k]·E[μ_k] from the same prior AdaT2 uses (history or catalog),
so GP-BO starts from the same knowledge. The acquisition is GP-UCB (mean + β·sd) over every
untried pair of the block's eligible statements: the pair is chosen jointly, with no novelty
order. numpy only; an exact GP is cheap at a few hundred observations.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular

from adat.config import BaselineSelection
from adat.selection.bandits import attempt_reward
from adat.selection.block_walk import BlockWalkSelector
from adat.selection.joint import untried_pairs
from adat.selection.novelty import argmax_lexicographic
from adat.selection.posteriors import theta_prior

_PRIOR_REWARD_MEAN = 0.5  # E[μ] under its Beta(1, 1) start
_SIGNAL_VARIANCE = 0.25   # rewards lie in [0, 1], so no pair's reward varies by more than 1/4
UCB_BETA = 2.0            # acquisition: mean + beta * sd
LENGTHSCALE = 0.5         # kernel length scale over 1 - cos(statements)
INSTRUCTION_CORR = 0.2    # kernel correlation of different instructions
NOISE = 0.1               # observation noise variance


class GPBOSelector(BlockWalkSelector):
    """Joint pair choice by GP-UCB; see the module docstring for the model."""

    name = "gp-bo"
    cfg: BaselineSelection

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        emb = self.novelty.emb
        self.statement_kernel = _SIGNAL_VARIANCE * np.exp(-(1.0 - emb @ emb.T) / LENGTHSCALE)
        factors = np.array([i.factor for i in self.instructions])
        rho = INSTRUCTION_CORR
        same_factor = factors[:, None] == factors[None, :]
        self.instruction_kernel = np.where(same_factor, (1.0 + rho) / 2.0, rho)
        np.fill_diagonal(self.instruction_kernel, 1.0)
        self.prior_mean = theta_prior(self.instructions, weight=self.cfg.prior_weight, history=self.priors).mean() \
            * _PRIOR_REWARD_MEAN
        self.obs_h: list[int] = []
        self.obs_k: list[int] = []
        self.obs_y: list[float] = []

    def posterior(self, hs: np.ndarray, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """GP posterior mean and standard deviation of the reward of pairs (hs[i], ks[i])."""
        mean = self.prior_mean[ks]
        if not self.obs_y:
            return mean, np.full(len(hs), np.sqrt(_SIGNAL_VARIANCE))
        oh, ok = np.array(self.obs_h), np.array(self.obs_k)
        k_obs = self.statement_kernel[np.ix_(oh, oh)] * self.instruction_kernel[np.ix_(ok, ok)]
        k_obs[np.diag_indices_from(k_obs)] += NOISE
        k_cross = self.statement_kernel[np.ix_(hs, oh)] * self.instruction_kernel[np.ix_(ks, ok)]
        factor = cho_factor(k_obs, lower=True)
        residual = np.array(self.obs_y) - self.prior_mean[ok]
        mean = mean + k_cross @ cho_solve(factor, residual)
        v = solve_triangular(factor[0], k_cross.T, lower=True)
        var = np.clip(_SIGNAL_VARIANCE - np.einsum("ij,ij->j", v, v), 1e-12, None)
        return mean, np.sqrt(var)

    def _choose(self, eligible: np.ndarray, t: int) -> tuple[int, int, dict[str, Any]]:
        hs, ks = untried_pairs(self, eligible)
        mean, sd = self.posterior(hs, ks)
        acquisition = mean + UCB_BETA * sd
        i = argmax_lexicographic(self.rng, acquisition, mean)
        return int(hs[i]), int(ks[i]), {"acquisition": round(float(acquisition[i]), 6),
                                         "mean": round(float(mean[i]), 6), "sd": round(float(sd[i]), 6)}

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        self.obs_h.append(h)
        self.obs_k.append(k)
        self.obs_y.append(attempt_reward(applicable, reward))
