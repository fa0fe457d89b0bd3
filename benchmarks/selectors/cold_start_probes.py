"""Probes of `pooled-cold-start` variants that were measured and rejected (docs/selection.md).

A record, not a selector: each variant subclasses :class:`adat.selection.pooled.PooledSelector`
(cold start) and changes one thing; the script runs them on the same built-in worlds as
``run.py`` and prints each variant's mean N_50 and its paired difference to the first one
(mean ± standard error over worlds), so the figures quoted in docs/selection.md can be rerun::

    python benchmarks/selectors/cold_start_probes.py base,eb,ml,preq,bma,kg,gittins --seeds 0-19,400-439
    python benchmarks/selectors/cold_start_probes.py base:pooled_cold_obs_weight=0.15 --calibration
    python benchmarks/selectors/cold_start_probes.py base:pooled_cold_exploit_after=1,recept:late=25,base --seeds 0-19,400-459
    python benchmarks/selectors/cold_start_probes.py base,fts,fts:scale=0.5:kappa=0.5 --seeds 0-19,400-459

A variant is ``name[:key=value...]``; ``pooled_*`` keys set the selector config, other keys the
variant's own parameter (``/`` separates a grid's values). ``--calibration`` prints, per family,
the model's mean predicted applicability of the current statement's untried pairs against their
true probability, grouped by how often the instruction's factor has been tried.
"""

# ruff: noqa: E402  (the BLAS thread count must be set before numpy is imported)
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from adat.config import SelectorConfig
from adat.instruction_catalog import load_instructions
from adat.records import Instruction
from adat.selection.novelty import argmax_lexicographic
from adat.selection.pooled import _MAX_STRENGTH, _NEWTON_STEPS, PooledSelector, _sigmoid

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import REASONS, VERDICTS, SimStatement, statements_of
from worlds import FAMILIES, make_world


class _Fit(PooledSelector):
    """The cold-start model with its fit exposed at any prior precision and observation weight."""

    def fit_at(self, prec: np.ndarray, omega: float, steps: int) -> tuple[np.ndarray, np.ndarray, float]:
        """(coef, Laplace logit variance per instruction, Laplace log evidence) at ``prec``."""
        n, y = omega * self.obs_count, omega * self.obs_success
        f1, g = 1 + self.factor_of, self._k0
        pu, pa = prec[:g], prec[g:]
        coef = self.coef.copy()
        for _ in range(steps):
            u, a = coef[:g], coef[g:]
            p = _sigmoid(u[0] + u[f1] + a + self.offset)
            w, resid = n * p * (1.0 - p), y - n * p
            d = w + pa
            grad_u, grad_a = self._collect(resid) - pu * u, resid - pa * a
            delta_u = np.linalg.solve(self._schur(w - w * w / d, pu), grad_u - self._collect(w * grad_a / d))
            coef = np.concatenate([u + delta_u, a + (grad_a - w * (delta_u[0] + delta_u[f1])) / d])
        p = np.clip(_sigmoid(coef[0] + coef[f1] + coef[g:] + self.offset), 1e-9, 1 - 1e-9)
        w = n * p * (1.0 - p)
        d = w + pa
        schur = self._schur(w - w * w / d, pu)
        s_inv = np.linalg.inv(schur)
        self.s_inv = s_inv
        q = s_inv[0, 0] + 2.0 * s_inv[0, f1] + s_inv[f1, f1]
        evidence = float(np.sum(y * np.log(p) + (n - y) * np.log(1 - p)) - 0.5 * np.sum(prec * coef * coef)
                         + 0.5 * np.sum(np.log(prec)) - 0.5 * np.sum(np.log(d)) - 0.5 * np.linalg.slogdet(schur)[1])
        return coef, q * (1.0 - w / d) ** 2 + 1.0 / d, evidence

    def _refit(self) -> None:
        self.coef, self.logit_var, _ = self.fit_at(self.prior_precision, self.obs_weight, _NEWTON_STEPS)


class EMFactorSd(_Fit):
    """Empirical Bayes: the between-factor variance τ² by MAP-EM (inverse-gamma prior, nu0 pseudo-factors)."""

    def __init__(self, *args: Any, nu0: float = 2.0, em_iters: int = 1, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.nu0, self.em_iters, self.tau0_sq = nu0, int(em_iters), 1.0 / self.prior_precision[1]

    def _refit(self) -> None:
        g = self._k0
        for _ in range(self.em_iters):
            super()._refit()
            b = self.coef[1:g]
            tau_sq = (self.nu0 * self.tau0_sq + np.sum(b * b + np.diag(self.s_inv)[1:])) / (self.nu0 + len(b))
            self.prior_precision[1:g] = 1.0 / tau_sq
        super()._refit()


class EvidenceFactorSd(_Fit):
    """Type-II ML: factor sd (and instruction sd) maximising the Laplace evidence over a grid."""

    def __init__(self, *args: Any, grid_tau: Sequence[float] = (0.3, 0.5, 0.7, 1.0, 1.5, 2.2),
                 grid_sa: Sequence[float] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.grid_tau, self.grid_sa = grid_tau, grid_sa or (float(np.sqrt(1.0 / self.prior_precision[-1])),)

    def _refit(self) -> None:
        g, best = self._k0, None
        if self.obs_count.sum() > 0:
            for tau in self.grid_tau:
                for sa in self.grid_sa:
                    prec = self.prior_precision.copy()
                    prec[1:g], prec[g:] = 1.0 / tau ** 2, 1.0 / sa ** 2
                    evidence = self.fit_at(prec, self.obs_weight, 4)[2]
                    if best is None or evidence > best[0]:
                        best = (evidence, prec)
            self.prior_precision = best[1]  # type: ignore[index]
        super()._refit()


class HeavyTailFactors(_Fit):
    """A Student-t prior (ν, scale τ) on the factor levels b_f — most kinds of change near the common
    level, a few far from it — as a scale mixture of normals: the EM step sets each factor's prior
    precision to (ν + 1) / ((ν + E[b_f²] / τ²) · τ²)."""

    def __init__(self, *args: Any, nu: float = 1.0, tau: float = 0.5, em_iters: int = 1, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.nu, self.tau, self.em_iters = nu, tau, int(em_iters)
        self.prior_precision[1:self._k0] = 1.0 / tau ** 2

    def _refit(self) -> None:
        g = self._k0
        for _ in range(self.em_iters):
            super()._refit()
            second = self.coef[1:g] ** 2 + np.diag(self.s_inv)[1:]
            self.prior_precision[1:g] = (self.nu + 1.0) / ((self.nu + second / self.tau ** 2) * self.tau ** 2)
        super()._refit()


class AsymmetricWeights(_Fit):
    """Successes and n/a enter the instruction model at their own weights (``ws``, ``wf``): in a world
    where a kind of change applies where a statement has what it needs, an n/a says more about that
    statement than about the instruction's average, a success about as much as any draw."""

    def __init__(self, *args: Any, ws: float = 0.5, wf: float = 0.25, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.ws, self.wf = ws, wf

    def _refit(self) -> None:
        count, success = self.obs_count, self.obs_success
        self.obs_count, self.obs_success = self.ws * success + self.wf * (count - success), self.ws * success
        try:
            self.coef, self.logit_var, _ = self.fit_at(self.prior_precision, 1.0, _NEWTON_STEPS)
        finally:
            self.obs_count, self.obs_success = count, success


class HeavyTailInstructions(_Fit):
    """A Student-t prior (ν, scale: the instruction's own prior sd) on the instruction deviations
    a_k — most instructions near their factor, a few far from it, e.g. one whose statements rarely
    have what it needs — as a scale mixture of normals (EM on the a-block's prior precision).
    With ``catalog=1`` the catalog path (``pooled``) instead of the cold start."""

    def __init__(self, *args: Any, nu: float = 1.0, em_iters: int = 1, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.nu, self.em_iters = nu, int(em_iters)
        self.base_prec_a = self.prior_precision[self._k0:].copy()

    def _refit(self) -> None:
        g = self._k0
        for _ in range(self.em_iters):
            super()._refit()
            c, n = self.coef, self.obs_weight * self.obs_count
            p = _sigmoid(c[0] + c[1 + self.factor_of] + c[g:] + self.offset)
            second = c[g:] ** 2 + 1.0 / (n * p * (1.0 - p) + self.prior_precision[g:])
            tau2 = 1.0 / self.base_prec_a
            self.prior_precision[g:] = (self.nu + 1.0) / ((self.nu + second / tau2) * tau2)
        super()._refit()


class FactorThompson(PooledSelector):
    """Randomised optimism shared within a factor: the score's E[θ] + κ·sd[θ] becomes
    E[θ] + (kappa + scale·z_f)·sd[θ] with one z_f ~ N(0, 1) per factor, drawn afresh after every
    outcome (a Thompson draw of the factor's level, in the model's own sd units), so a factor
    dropped after one n/a keeps a chance proportional to how unsure the model still is of it."""

    def __init__(self, *args: Any, scale: float = 1.0, kappa: float = 0.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.scale, self.kappa_ts = scale, kappa
        self.ts_rng = np.random.default_rng([int(args[5]) if len(args) > 5 else 0, 99])  # args[5]: the seed
        self.z = self.ts_rng.normal(size=self._k0 - 1)

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        super()._learn(h, k, applicable, reward)
        self.z = self.ts_rng.normal(size=self._k0 - 1)

    def _scores(self, h: int, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        score, mean, sd = super()._scores(h, arms)
        base = mean + self.cfg.pooled_kappa * sd + self.explore / (1.0 + self.factor_tries[self.factor_of[arms]])
        draw = mean + (self.kappa_ts + self.scale * self.z[self.factor_of[arms]]) * sd
        return np.maximum(draw, 0.0) * score / np.maximum(base, 1e-12), mean, sd


class StatementReasonDiscount(PooledSelector):
    """A `statement`-tagged n/a — the statement lacks what this kind of change needs — counts in
    the instruction model at (1 − share) of an unexplained one: it is explained by the statement,
    so it says less about the instruction's (and its factor's) average. Its neighbour evidence
    and the reason's count against the factor nearby are unchanged."""

    def __init__(self, *args: Any, share: float = 0.5, **kw: Any) -> None:
        self.share = share
        super().__init__(*args, **kw)

    def _refit(self) -> None:
        counts = self.obs_count
        self.obs_count = counts - self.share * self.statement_na
        try:
            super()._refit()
        finally:
            self.obs_count = counts


class Prequential(_Fit):
    """Hyperparameters (ω × factor sd grid) by their prequential log score: the sequential predictive
    probability each model gave every outcome before seeing it (adaptive choice is ignorable for it).
    ``bma`` 0: the best-scoring model chooses; 1: predictions averaged with weights ∝ exp(score)."""

    def __init__(self, *args: Any, omegas: Sequence[float] = (0.15, 0.3, 0.5, 0.8),
                 taus: Sequence[float] | None = None, bma: float = 0.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        g, tau0 = self._k0, float(np.sqrt(1.0 / self.prior_precision[1]))
        self.models: list[dict[str, Any]] = []
        for om in omegas:
            for tau in taus or (tau0,):
                prec = self.prior_precision.copy()
                prec[1:g] = 1.0 / tau ** 2
                self.models.append({"omega": om, "prec": prec, "coef": self.coef.copy(),
                                    "var": self.logit_var.copy(), "score": 0.0})
        self.cur = int(np.argmin([abs(m["omega"] - self.obs_weight) + abs(np.sqrt(1 / m["prec"][1]) - tau0)
                                  for m in self.models]))
        self.bma = bool(bma)

    def _use(self, m: dict[str, Any]) -> None:
        self.coef, self.logit_var, self.obs_weight, self.prior_precision = m["coef"], m["var"], m["omega"], m["prec"]

    def applicability(self, h: int, arms: np.ndarray, *, reasons: bool = True,
                      unavailable: bool = True) -> tuple[np.ndarray, np.ndarray]:
        if not self.bma:
            return super().applicability(h, arms, reasons=reasons, unavailable=unavailable)
        scores = np.array([m["score"] for m in self.models])
        wts = np.exp(scores - scores.max())
        mean, second = np.zeros(len(arms)), np.zeros(len(arms))
        for wt, m in zip(wts / wts.sum(), self.models, strict=True):
            self._use(m)
            mu, sd = super().applicability(h, arms, reasons=reasons)
            mean, second = mean + wt * mu, second + wt * (sd * sd + mu * mu)
        self._use(self.models[self.cur])
        return mean, np.sqrt(np.maximum(second - mean * mean, 0.0))

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        for m in self.models:
            self._use(m)
            p = float(np.clip(PooledSelector.applicability(self, h, np.array([k]))[0][0], 1e-4, 1 - 1e-4))
            m["score"] += np.log(p if applicable else 1.0 - p)
        self._use(self.models[self.cur])
        super()._learn(h, k, applicable, reward)

    def _refit(self) -> None:
        for m in self.models:
            self._use(m)
            super()._refit()
            m["coef"], m["var"] = self.coef, self.logit_var
        self.cur = int(np.argmax([m["score"] for m in self.models]))
        self._use(self.models[self.cur])


class _Index(PooledSelector):
    """An index policy in place of E[θ] + κ·sd[θ] (the spread penalty and prefer() weights kept)."""

    def index(self, h: int, arms: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        mean, sd = self.applicability(h, arms)
        penalty = self.cfg.pooled_spread_gamma ** self.near_factor_tests[h, self.factor_of[arms]] * self.weights(h, arms)
        i = argmax_lexicographic(self.rng, self.index(h, arms, mean, sd) * penalty, mean)
        return int(arms[i]), {}


class OnlineKG(_Index):
    """Online knowledge gradient: E[θ] + κ·sd + c · (expected remaining attempts) · KG of one outcome,
    the KG on the model's fresh-statement Beta of each instruction (strength as in ``applicability``)."""

    def __init__(self, *args: Any, c: float = 1.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.c = c

    def index(self, h: int, arms: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
        cf = self.coef
        p = _sigmoid(cf[0] + cf[1 + self.factor_of] + cf[self._k0:] + self.offset)
        n0 = np.clip(1.0 / np.maximum(p * (1 - p) * self.logit_var, 1e-9) - 1.0, 1.0, _MAX_STRENGTH)
        up = (n0 * p + self.obs_weight) / (n0 + self.obs_weight)
        top = np.sort(p)[::-1]
        other = np.where(p >= top[0], top[1], top[0])
        kg = p * np.maximum(0.0, up - np.maximum(other, p))  # a failure never raises the maximum
        remaining = (self.n_target - self.tests) / max(float(top[0]), 0.05)
        return np.asarray(mean + self.cfg.pooled_kappa * sd + self.c * remaining * kg[arms])


def _brezzi_lai(s: np.ndarray) -> np.ndarray:
    """ψ(s) of Brezzi & Lai (2002), the Gaussian approximation of the Gittins index."""
    s = np.maximum(np.asarray(s, dtype=float), 1e-12)
    log_s = np.log(np.maximum(s, np.e))
    return np.asarray(np.select(
        [s <= 0.2, s <= 1, s <= 5, s <= 15],
        [np.sqrt(s / 2), 0.49 - 0.11 / np.sqrt(s), 0.63 - 0.26 / np.sqrt(s), 0.77 - 0.58 / np.sqrt(s)],
        np.sqrt(np.maximum(2 * log_s - np.log(log_s) - np.log(16 * np.pi), 0.0))))


class Gittins(_Index):
    """Approximate Gittins index E[θ] + sd·ψ(sd²·H·ω / (θ(1 − θ))), H = the expected remaining attempts
    (× ``hscale``): explores while much of the run is left, exploits at its end."""

    def __init__(self, *args: Any, hscale: float = 1.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hscale = hscale

    def index(self, h: int, arms: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
        horizon = max(self.hscale * (self.n_target - self.tests) / max(float(mean.max()), 0.05), 1.0)
        return np.asarray(mean + sd * _brezzi_lai(sd ** 2 * horizon * self.obs_weight
                                                 / np.maximum(mean * (1 - mean), 1e-6)))


class StatementFactorEffect(PooledSelector):
    """A random effect per (statement neighbourhood, factor), fitted jointly with the model (a GLMM):
    ``logit θ(h, k) = β₀ + b_f + a_k + g_f(h)``, g_f ~ GP(0, σ_g² · cos(e_h, e_h')^p) over statements,
    independent per factor. An n/a is shared between the factor's level b_f and its term at that
    statement (and, through the kernel, its neighbours), by their variances. Joint MAP by dense
    Newton steps over (β₀, b, a, g at the observed (h, f)), Laplace variance; the instruction's
    neighbour pseudo-counts and the reason channel are kept on top (``reasons`` 0: off)."""

    def __init__(self, *args: Any, sd_g: float = 1.0, power: float = 2.0, omega: float = 1.0,
                 reasons: float = 1.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        emb = self.novelty.emb
        self.kernel = np.asarray((emb @ emb.T) ** int(power))
        self.var_g, self.omega, self.use_reasons = sd_g ** 2, omega, bool(reasons)
        self.obs: list[tuple[int, int, float]] = []
        self.g_index: dict[tuple[int, int], int] = {}
        self.g_of_factor: list[list[int]] = [[] for _ in range(self._k0 - 1)]  # latent ids per factor
        self.g_stmt: list[int] = []
        self.theta = np.zeros(self._k0 + len(self.instructions))
        self.sigma = np.diag(1.0 / self.prior_precision)
        self.g_prior_inv: list[np.ndarray] = [np.zeros((0, 0)) for _ in range(self._k0 - 1)]

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        f = int(self.factor_of[k])
        if (h, f) not in self.g_index:
            self.g_index[(h, f)] = len(self.g_stmt)
            self.g_of_factor[f].append(len(self.g_stmt))
            self.g_stmt.append(h)
            self.theta = np.append(self.theta, 0.0)
            self.sigma = np.pad(self.sigma, ((0, 1), (0, 1)))
            self.sigma[-1, -1] = self.var_g  # until the refit: its prior variance
            idx = [self.g_stmt[j] for j in self.g_of_factor[f]]
            cov = self.var_g * self.kernel[np.ix_(idx, idx)] + 1e-6 * np.eye(len(idx))
            self.g_prior_inv[f] = np.linalg.inv(cov)
        self.obs.append((h, k, float(applicable)))
        super()._learn(h, k, applicable, reward)

    def _refit(self) -> None:
        n_fix = self._k0 + len(self.instructions)
        dim = n_fix + len(self.g_stmt)
        x = np.zeros((len(self.obs), dim))
        y = np.array([o[2] for o in self.obs])
        for i, (h, k, _) in enumerate(self.obs):
            f = int(self.factor_of[k])
            x[i, [0, 1 + f, self._k0 + k, n_fix + self.g_index[(h, f)]]] = 1.0
        prior = np.zeros((dim, dim))
        prior[np.arange(n_fix), np.arange(n_fix)] = self.prior_precision
        for f, ids in enumerate(self.g_of_factor):
            if ids:
                j = n_fix + np.array(ids)
                prior[np.ix_(j, j)] = self.g_prior_inv[f]
        theta = self.theta
        for _ in range(_NEWTON_STEPS):
            p = _sigmoid(x @ theta)
            w = self.omega * p * (1 - p)
            hess = x.T @ (x * w[:, None]) + prior
            theta = theta + np.linalg.solve(hess, x.T @ (self.omega * (y - p)) - prior @ theta)
        p = _sigmoid(x @ theta)
        self.theta = theta
        self.sigma = np.linalg.inv(x.T @ (x * (self.omega * p * (1 - p))[:, None]) + prior)
        # the parent's per-instruction view (used by nothing but its snapshot): the level without g
        self.coef = theta[:n_fix]

    def applicability(self, h: int, arms: np.ndarray, *, reasons: bool = True,
                      unavailable: bool = True) -> tuple[np.ndarray, np.ndarray]:
        # measured before rule 7 (an instruction unavailable in the run); it keeps its own model without it
        n_fix = self._k0 + len(self.instructions)
        f_arms = self.factor_of[arms]
        eta = np.empty(len(arms))
        var = np.empty(len(arms))
        for f in np.unique(f_arms):
            sel = f_arms == f
            ks = arms[sel]
            xs = np.zeros((len(ks), len(self.theta)))
            xs[:, 0] = 1.0
            xs[:, 1 + f] = 1.0
            xs[np.arange(len(ks)), self._k0 + ks] = 1.0
            extra = self.var_g
            ids = self.g_of_factor[f]
            if ids:
                c = self.var_g * self.kernel[h, [self.g_stmt[j] for j in ids]]
                alpha = self.g_prior_inv[f] @ c
                xs[:, n_fix + np.array(ids)] = alpha
                extra = max(self.var_g - float(c @ alpha), 0.0)
            eta[sel] = xs @ self.theta
            var[sel] = np.einsum("ij,jk,ik->i", xs, self.sigma, xs) + extra
        p = _sigmoid(eta)
        strength = np.clip(1.0 / np.maximum(p * (1 - p) * var, 1e-9) - 1.0, 1.0, _MAX_STRENGTH)
        succ, fail = self.near_success[h, arms], self.near_failure[h, arms]
        if reasons and self.use_reasons:
            fail = fail + self.reason_share() * (self.reason_failure[h, f_arms] - self.reason_near[h, arms])
        a, b = strength * p + succ, strength * (1 - p) + fail
        total = a + b
        return a / total, np.sqrt(a * b / (total * total * (total + 1.0)))


class StatementReceptivity(PooledSelector):
    """The walk side, not the instruction model: a statement-level applicability effect r(h), the
    neighbour-weighted mean residual (y − p̂, p̂ the prediction before the outcome) of every attempt
    on statements near h, across instructions, shrunk by ``shrink`` pseudo-attempts. It is used
    (1) to set a statement aside after an n/a when r(h) < −``hostile`` (the statement looks hostile
    to most kinds of change: move on instead of spending m attempts on it), (2) to order statements:
    novelty + ``order`` · r(h), and (3) ``explore`` 1: when the instruction the model picks for the
    chosen statement is of a factor tried fewer than ``few`` times, its attempt goes to the open
    statement of the block most receptive to it (r(h) + its neighbour evidence) among those whose
    novelty is within ``slack`` of the best — so a new kind of change is first tried where it is
    most likely to apply. ``late`` > 0: from ``late`` tests on, m = 1 (move on after one n/a)."""

    def __init__(self, *args: Any, hostile: float = 9.0, order: float = 0.0, shrink: float = 3.0,
                 explore: float = 0.0, few: float = 2.0, slack: float = 0.2, late: float = 0.0,
                 moveon: float = 0.0, notlast: float = 0.0, lastpass: float = 0.0,
                 latejoint: float = 0.0, fresh: float = 0.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hostile, self.order, self.shrink = hostile, order, shrink
        self.explore_receptive, self.few, self.slack, self.late = bool(explore), few, slack, late
        self.moveon, self.notlast, self.lastpass, self.latejoint = moveon, bool(notlast), bool(lastpass), latejoint
        self.fresh = bool(fresh)
        n_s = len(self.statement_ids)
        self.resid_sum, self.resid_w = np.zeros(n_s), np.zeros(n_s)

    def receptivity(self, hs: np.ndarray) -> np.ndarray:
        return np.asarray(self.resid_sum[hs] / (self.shrink + self.resid_w[hs]))

    def _choose(self, eligible: np.ndarray, t: int) -> tuple[int, int, dict[str, Any]]:
        nu = self.novelty.novelty(eligible)
        key = nu + self.order * self.receptivity(eligible)
        if self.latejoint > 0 and self.tests >= self.latejoint:
            key = np.array([self.best_score(int(x)) for x in eligible])
            if self.fresh:  # untested statements first, as the novelty order has them
                key = key + 10.0 * (nu > 0)
        h = int(eligible[argmax_lexicographic(self.rng, key)])
        k, scores = self._choose_instruction(h, self.untried(h), t)
        if self.explore_receptive and self.factor_tries[self.factor_of[k]] < self.few:
            near = eligible[(key >= key.max() - self.slack) & ~self.tried[eligible, k]]
            if len(near) > 1:
                value = [self.applicability(int(x), np.array([k]))[0][0] + self.receptivity(np.array([x]))[0]
                         for x in near]
                h = int(near[argmax_lexicographic(self.rng, np.array(value))])
        return h, k, scores

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        p_hat = float(self.applicability(h, np.array([k]))[0][0])
        w = self.neighbour_w[:, h]
        self.resid_sum += w * (float(applicable) - p_hat)
        self.resid_w += w
        super()._learn(h, k, applicable, reward)
        if not applicable and (self.receptivity(np.array([h]))[0] < -self.hostile
                               or (self.late > 0 and self.tests >= self.late
                                   and not (self.notlast and self.pass_no >= self.cfg.max_passes))
                               or (self.lastpass and self.pass_no >= self.cfg.max_passes)):
            self.set_aside[h] = True
        if not applicable and self.moveon > 0 and not self.set_aside[h]:
            members = self.blocks[self.block]
            others = members[~self.set_aside[members] & (members != h) & ~self.tried[members].all(axis=1)]
            if len(others) and self.best_score(h) < self.moveon * max(self.best_score(int(x)) for x in others):
                self.set_aside[h] = True

    def best_score(self, h: int) -> float:
        arms = self.untried(h)
        if not len(arms):
            return 0.0
        mean, sd = self.applicability(h, arms)
        return float(np.max((mean + self.cfg.pooled_kappa * sd)
                            * self.cfg.pooled_spread_gamma ** self.near_factor_tests[h, self.factor_of[arms]]))


class FreshThreshold(PooledSelector):
    """The infinitely-many-armed bandit's run policy (Berry et al. 1997): an instruction with no
    outcome of its own in this run scores at least ``tau``, so the run keeps using what it has
    while its score stays above τ and otherwise tries a fresh instruction (the best fresh one by
    the model, as the tie-break on E[θ] has it)."""

    def __init__(self, *args: Any, tau: float = 0.7, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.tau = tau

    def _scores(self, h: int, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        score, mean, sd = super()._scores(h, arms)
        fresh = self.obs_count[arms] == 0
        return np.where(fresh, np.maximum(score, self.tau), score), mean, sd


class RunPolicy(PooledSelector):
    """The context-free run policy of ``context_free_bound.py`` inside the real walk: each
    instruction scores (s_k + τ)/(n_k + 1) from this run's own outcomes, whatever the statement
    (the model, reasons unused); ``near`` > 0 adds the instruction's neighbour-weighted outcomes
    near the statement (rule 2's counts) at that weight, ``spread=1`` the spread penalty."""

    def __init__(self, *args: Any, tau: float = 0.65, near: float = 0.0, spread: float = 0.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.tau, self.near, self.spread = tau, near, bool(spread)

    def _scores(self, h: int, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        near_s, near_f = self.near_success[h, arms], self.near_failure[h, arms]
        score = (self.obs_success[arms] + self.tau + self.near * near_s) \
            / (self.obs_count[arms] + 1.0 + self.near * (near_s + near_f))
        if self.spread:
            score = score * self.cfg.pooled_spread_gamma ** self.near_factor_tests[h, self.factor_of[arms]]
        return score, score, np.zeros(len(arms))


VARIANTS: dict[str, type[PooledSelector]] = {
    "base": PooledSelector, "eb": EMFactorSd, "ml": EvidenceFactorSd, "preq": Prequential, "bma": Prequential,
    "kg": OnlineKG, "gittins": Gittins, "glmm": StatementFactorEffect,
    "tprior": HeavyTailFactors, "asym": AsymmetricWeights, "tinst": HeavyTailInstructions, "recept": StatementReceptivity, "fts": FactorThompson, "sdisc": StatementReasonDiscount,
    "fresh": FreshThreshold, "runpol": RunPolicy}


def make_variant(spec: str, statements: Sequence[SimStatement], instructions: Sequence[Instruction],
                 embeddings: np.ndarray, n: int, seed: int) -> PooledSelector:
    name, *parts = spec.split(":")
    catalog = "catalog=1" in parts  # the catalog path (`pooled`), not the cold start
    parts = [q for q in parts if q != "catalog=1"]
    cfg: dict[str, Any] = {"name": "pooled" if catalog else "pooled-cold-start"}
    if name == "recept":  # its own walk rules, measured against the cold start before rule 6 (docs/selection.md)
        cfg["pooled_cold_exploit_after"] = 1.0
    extra: dict[str, Any] = {"bma": 1.0} if name == "bma" else {}
    for part in parts:
        key, value = part.split("=")
        if key in SelectorConfig.model_fields:  # a selector setting (pooled_*, max_not_applicable, ...)
            cfg[key] = float(value)
        else:
            values = tuple(float(x) for x in value.split("/"))
            extra[key] = values if "/" in value or key in ("omegas", "taus", "grid_tau", "grid_sa") else values[0]
    return VARIANTS[name](SelectorConfig.model_validate(cfg), statements, instructions, embeddings, n, seed,
                          cold_start=not catalog, name=spec, **extra)


def run_world(job: tuple[str, int, tuple[str, ...], bool]) -> tuple[str, int, dict[str, Any]]:
    family, seed, specs, calibration = job
    world = make_world(family, seed, load_instructions())
    instructions, night = world.instructions(), world.nights["run"]
    statements = statements_of(night)
    factors = sorted({i.factor for i in instructions})
    factor_of = np.array([factors.index(i.factor) for i in instructions])
    ids = {s.statement_id: i for i, s in enumerate(statements)}
    kids = {ins.instruction_id: i for i, ins in enumerate(instructions)}
    # the factor with the highest true mean applicability this night (`wording` in every built-in world)
    best = int(np.argmax([night.p_applicable[:, factor_of == f].mean() for f in range(len(factors))]))
    out: dict[str, Any] = {}
    for spec in specs:
        sel = make_variant(spec, statements, instructions, night.embeddings, 50, seed * 1000 + 7)
        attempts = tests = na_before = 0
        first: bool | None = None
        found = False
        groups: dict[str, list[tuple[float, float]]] = {}
        while tests < 50 and (pair := sel.next_pair()) is not None:
            h, k = ids[pair.statement_id], kids[pair.instruction_id]
            if calibration and attempts % 5 == 4:
                arms = sel.untried(h)
                tried = np.bincount(factor_of, weights=sel.obs_count, minlength=len(factors))
                worked = np.bincount(factor_of, weights=sel.obs_success, minlength=len(factors))
                for kk, m in zip(arms, sel.applicability(h, arms)[0], strict=True):
                    n_f, s_f = tried[factor_of[kk]], worked[factor_of[kk]]
                    group = "untried" if n_f == 0 else ("0/1" if n_f == 1 and s_f == 0 else "1/1" if n_f == 1
                                                        else "2-4" if n_f < 5 else ">=5")
                    groups.setdefault(group, []).append((float(m), float(night.p_applicable[h, kk])))
            ok = bool(night.applicable[h, k])
            attempts, tests = attempts + 1, tests + ok
            if factor_of[k] == best and first is None:
                first = ok
            na_before += not ok and not found
            found = found or (ok and factor_of[k] == best)
            code = 0 if ok else int(night.na_reason[h, k]) if night.na_reason is not None else 0
            sel.update(pair, applicable=ok, verdict=VERDICTS[night.verdict[h, k]] if ok else None,
                       reason=REASONS.get(code))
        out[spec] = (attempts, groups, first, na_before, float(np.sqrt(1.0 / sel.prior_precision[1])),
                     float(sel.obs_weight))
    return family, seed, out


def seed_list(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds += list(range(int(lo), int(hi or lo) + 1))
    return seeds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", help="comma-separated name[:key=value...]; the first is the paired reference")
    ap.add_argument("--seeds", default="0-19,400-439", help="world seeds, e.g. 0-19,400-439")
    ap.add_argument("--family", default=",".join(FAMILIES))
    ap.add_argument("--calibration", action="store_true", help="predicted vs true applicability by factor tries")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    specs, seeds = tuple(a.variants.split(",")), seed_list(a.seeds)
    jobs = [(f, s, specs, a.calibration) for f in a.family.split(",") for s in seeds]
    if a.workers > 1:
        with ProcessPoolExecutor(a.workers) as pool:
            results = list(pool.map(run_world, jobs, chunksize=4))
    else:
        results = [run_world(j) for j in jobs]
    print(f"pooled-cold-start variants, N_50 over seeds {a.seeds} ({len(seeds)} worlds per family); "
          f"d = paired difference to {specs[0]} (mean ± se)")
    for family in a.family.split(","):
        rows = [out for f, _, out in results if f == family]
        ref = np.array([r[specs[0]][0] for r in rows], dtype=float)
        cells = []
        for spec in specs:
            x = np.array([r[spec][0] for r in rows], dtype=float)
            d = x - ref
            se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
            cells.append(f"{spec} {x.mean():.1f} (d {d.mean():+.1f} ± {se:.1f})")
        print(f"{family}: " + " | ".join(cells))
        for spec in specs:
            n = np.array([r[spec][0] for r in rows], dtype=float)
            first = [r[spec][2] for r in rows]
            parts = [f"{label} {sum(f is v for f in first)} worlds (N_50 {n[[f is v for f in first]].mean():.1f})"
                     for label, v in (("worked", True), ("declined", False), ("never made", None))
                     if any(f is v for f in first)]
            print(f"  {spec}: first attempt of the best factor " + ", ".join(parts)
                  + f"; n/a before its first test {np.mean([r[spec][3] for r in rows]):.1f}; at the end factor sd "
                  f"{np.mean([r[spec][4] for r in rows]):.2f} (range {min(r[spec][4] for r in rows):.2f}"
                  f"-{max(r[spec][4] for r in rows):.2f}), omega {np.mean([r[spec][5] for r in rows]):.2f}")
        if a.calibration:
            for spec in specs:
                pooled: dict[str, list[tuple[float, float]]] = {}
                for r in rows:
                    for g, v in r[spec][1].items():
                        pooled.setdefault(g, []).extend(v)
                print(f"  {spec} calibration (predicted / true): " + "  ".join(
                    f"{g} {np.mean([p for p, _ in pooled[g]]):.2f} / {np.mean([t for _, t in pooled[g]]):.2f}"
                    for g in ("untried", "0/1", "1/1", "2-4", ">=5") if g in pooled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
