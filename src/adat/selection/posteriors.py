"""Beta posteriors, the Bayes-UCB quantile schedule, rewards and priors of AdaT2 (DESIGN §5).

Decisions the papers leave open, fixed here:

* **Quantile schedule.** ``q_t = 1 − 1/(t·(log T)^c)`` with ``t`` the 1-based number of the
  attempt being chosen and ``T`` the attempt budget. With the default ``c = 0`` this is
  ``1 − 1/t``, so the first attempt has ``q_1 = 0`` and every Beta quantile is 0: all scores tie.
  We keep the formula as written (Kaufmann et al. count from 1 too) and let ties fall to the
  posterior means (the prior, at t = 1), then to a seeded random draw — see
  :func:`adat.selection.novelty.argmax_lexicographic`. When ``(log T)^c`` is 0 (T = 1, c > 0)
  the level is taken as 0, and levels are capped just below 1 so ``beta.ppf`` stays finite.
* **Reward.** pass → 1, inconclusive → 0.5, fail → 0. A test written without a verdict (its
  execution errored) adds the θ success but nothing to μ: there is no evidence about its reward.
* **Prior of θ.** ``p = (w·p₀ + s) / (w + s + f)`` where ``p₀`` is the catalog's
  ``prior_applicability`` and ``s`` / ``f`` the instruction's applicable / not-applicable
  attempts in earlier runs of the warehouse *with the same generator model* (errors excluded):
  the catalog prior counts as ``w`` pseudo-observations, so one observation moves ``p`` only a
  third of the way (w = 2) and a long history dominates. θ starts at
  ``Beta(1 + w·p, 1 + w·(1 − p))``: history enters as a rate at weight ``w``, so however long
  it is, it cannot swamp what this run observes. ``cold-start`` uses Beta(1, 1). μ always
  starts at Beta(1, 1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from scipy.stats import beta as beta_dist

from adat.records import Attempt, Instruction

REWARDS = {"pass": 1.0, "inconclusive": 0.5, "fail": 0.0}
_MAX_LEVEL = 1.0 - 1e-12


def quantile_level(t: int, horizon: int, c: float = 0.0) -> float:
    """The Bayes-UCB level ``q_t = 1 − 1/(t·(log T)^c)`` for attempt ``t`` (1-based) of ``T``."""
    if t < 1:
        raise ValueError("attempt numbers start at 1")
    scale = math.log(horizon) ** c if horizon > 1 else (1.0 if c == 0 else 0.0)
    if scale <= 0:
        return 0.0
    return min(max(0.0, 1.0 - 1.0 / (t * scale)), _MAX_LEVEL)


def reward_of(verdict: str | None) -> float | None:
    """The verdict reward r; None when there is no verdict. Unknown verdicts are a bug (ValueError)."""
    if verdict is None:
        return None
    if verdict not in REWARDS:
        raise ValueError(f"verdict must be one of {sorted(REWARDS)}, got {verdict!r}")
    return REWARDS[verdict]


class BetaPosteriors:
    """One Beta(a, b) per arm, stored as two float arrays so scores are vectorised."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        self.a = np.asarray(a, dtype=float).copy()
        self.b = np.asarray(b, dtype=float).copy()

    @classmethod
    def uniform(cls, arms: int) -> BetaPosteriors:
        return cls(np.ones(arms), np.ones(arms))

    def add(self, arm: int, successes: float, failures: float) -> None:
        self.a[arm] += successes
        self.b[arm] += failures

    def quantile(self, level: float, arms: np.ndarray | None = None) -> np.ndarray:
        idx = slice(None) if arms is None else arms
        return np.asarray(beta_dist.ppf(level, self.a[idx], self.b[idx]), dtype=float)

    def mean(self, arms: np.ndarray | None = None) -> np.ndarray:
        idx = slice(None) if arms is None else arms
        return np.asarray(self.a[idx] / (self.a[idx] + self.b[idx]))

    def sample(self, rng: np.random.Generator, arms: np.ndarray) -> np.ndarray:
        return np.asarray(rng.beta(self.a[arms], self.b[arms]))


def theta_prior(instructions: Sequence[Instruction], *, weight: float,
                history: Mapping[str, tuple[float, float]] | None = None,
                cold_start: bool = False) -> BetaPosteriors:
    """The θ prior per instruction: history rate, else catalog prior, with weight ``weight``."""
    a = np.ones(len(instructions))
    b = np.ones(len(instructions))
    if cold_start:
        return BetaPosteriors(a, b)
    for i, ins in enumerate(instructions):
        succ, fail = (history or {}).get(ins.instruction_id, (0.0, 0.0))
        p = combined_prior_rate(ins.prior_applicability, succ, fail, weight)
        a[i] += weight * p
        b[i] += weight * (1.0 - p)
    return BetaPosteriors(a, b)


def combined_prior_rate(catalog: float, successes: float, failures: float, weight: float) -> float:
    """``(w·p₀ + s) / (w + s + f)``: the catalog rate as ``w`` pseudo-observations plus history.

    With no history it is the catalog rate; with ``weight`` 0 and some history, the history rate.
    """
    total = weight + successes + failures
    return catalog if total <= 0 else (weight * catalog + successes) / total


def instruction_history_priors(rows: Iterable[Attempt | tuple[str, bool]]) -> dict[str, tuple[float, float]]:
    """Per-instruction (applicable, not applicable) counts from earlier runs' attempts, given as
    :class:`adat.records.Attempt` rows or ``(instruction_id, applicable)`` tuples.

    The caller picks the rows (:func:`adat.stages.selection_priors.earlier_attempts`: this
    generator model's only, so an ``offline/heuristic`` run never feeds an ``openai/…`` run's
    prior); an ``error`` row teaches nothing and is skipped. The result is the ``priors``
    argument of :func:`adat.selection.make_selector`.
    """
    counts: dict[str, tuple[float, float]] = {}
    for row in rows:
        if not isinstance(row, tuple) and row.outcome == "error":
            continue
        iid, applicable = row if isinstance(row, tuple) else (row.instruction_id, row.applicable)
        s, f = counts.get(iid, (0.0, 0.0))
        counts[iid] = (s + 1.0, f) if applicable else (s, f + 1.0)
    return counts
