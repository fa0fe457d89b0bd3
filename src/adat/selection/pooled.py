"""``pooled``: AdaT2's novelty walk with applicability evidence shared across pairs.

AdaT2 learns each instruction's θ in isolation, so with ~100 instructions and a few hundred
attempts most arms are tried once or twice and the prior decides everything. ``pooled`` keeps
AdaT2's statement order (blocks, novelty, set-aside after m n/a) and estimates the applicability of a pair (h, k) from two sources:

1. **A hierarchical logistic model over instructions** —
   ``logit θ_k = o_k + β₀ + b_f(k) + a_k`` with Gaussian priors: ``o_k`` is the logit of the
   instruction's catalog rate (0 from a cold start, where β₀ is learned instead), ``b_f`` a
   level per instruction factor (what one attempt teaches about a *kind* of instruction reaches
   all of that kind), ``a_k`` the instruction's own deviation. Fitted by MAP with a Laplace
   posterior after each outcome (a few Newton steps, ~120 parameters), from this run's outcomes
   and, at weight ``history_weight``, this generator model's earlier runs (rule 8).
2. **Statement neighbours** — the outcomes of the same instruction on statements near h in
   embedding space (and an n/a whose reason is the statement, of every instruction of its
   factor), weighted by
   ``w(h, h') = clip((cos(e_h, e_h') − c₀) / (1 − c₀), 0, 1)`` (cosines of the run's embeddings
   centred on their mean, ``centre_embeddings``; :func:`centred_on`): an instruction that failed on
   a statement is expected to fail on its near-duplicates and on statements about the same
   thing, and one that worked there is expected to work again. Earlier runs' attempts
   (:class:`PastAttempts`) count here too, at weight ``history_weight``.

The model's Laplace posterior becomes a Beta(n₀·p, n₀·(1 − p)) with the strength n₀ of the
same variance, the neighbour evidence is added as weighted counts, and the instruction for the
chosen statement maximises ``(E[θ] + κ·sd[θ]) · γ^{u_k} · γ_s^{n_f(h)}`` — optimistic
applicability, AdaT2's per-block reuse penalty (off by default: N_n rewards using an
instruction that keeps working) and the spread penalty: ``n_f(h)`` sums ``w_s(h, h')`` (the same ramp with
a higher floor) over the tests of factor f already made on statements h' near h, since the same
kind of change on a near-duplicate statement makes a near-duplicate test.
The caller's both-sides weight (:meth:`prefer`) enters as a bonus that shrinks by
``side_gamma`` per test the instruction already wrote under one (:meth:`side_weights`).
A rewording (a factor of ``REWORDING_FACTORS``) near-duplicates its plain test, and the same
rewording on statement after statement near-duplicates its own tests: each test a rewording
instruction wrote in the run multiplies its own score by ``REWORDING_GAMMA``
(:meth:`rewording_penalty`, issue 28 item 4), so the share of rewordings falls; the both-sides
bonus keeps rewarding a change that reaches a new side.
An instruction whose tests keep expecting the same outcome (the same side and success criteria:
"decline to identify yourself" ends in the same request for identification on statement after
statement) reaches one boundary again and again, whatever the statement: each such repeat
multiplies its score by ``repeat_gamma`` (:meth:`count_repeats`, set by the transformation stage;
issue 28 item 4), so the budget goes to changes that reach new sides of the statements' own
boundaries.
Two rules are added to the walk: before the last pass, a statement whose novelty is below
``defer_novelty`` (a near-duplicate of a statement with a test) waits for the next pass,
so the tests spread over statements at no cost in attempts; and from a cold start, once
``cold_exploit_after`` · n tests exist, the walk exploits: it takes the block's statement
with the best pair (untested statements first) and sets a statement aside after one n/a. Early
on, the second and third attempts on a statement that declined its best pair are where new
kinds of change get tried; in the second half of the run a new kind pays for few tests, and the
next-best pair on a declining statement is worse than the best pair on another one.
An instruction the generator declines with an ``instruction`` reason ("it cannot be done in
this run") becomes *unavailable* with a posterior probability P_k (a zero-inflated θ, rule 7 in
docs/research/selection-log.md; :meth:`_unavailable`): the logistic model's tight prior on a_k cannot send one
instruction of a working factor to zero, and the generator's reasons can.
It uses only what a black-box tester has — attempts, verdicts, statement embeddings, catalog —
and errors teach it nothing (the shared walk drops them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from adat.config import PooledSelection
from adat.selection.adat2 import NoveltyOrderSelector
from adat.selection.novelty import argmax_lexicographic

_NEWTON_STEPS = 2  # warm-started from the last fit: one outcome moves the MAP little
_MAX_STRENGTH = 200.0  # the model's Beta strength is capped so neighbours always count
# The model's fixed constants (tuned on the simulated worlds of benchmarks/selectors; the research
# log, docs/research/selection-log.md, records each choice; PooledSelection holds what a user may set):
GLOBAL_SD_COLD = 1.5        # prior sd of the global logit level β₀ from a cold start (0.2 with a catalog)
FACTOR_SD = 0.7             # prior sd of a factor's logit level b_f around the catalog
FACTOR_SD_COLD = 1.5        # ... from a cold start
INSTRUCTION_SD = 0.5        # prior sd of an instruction's own deviation a_k
NEIGHBOUR_FLOOR = 0.2       # cosine below which statements are not neighbours
NEIGHBOUR_WEIGHT = 1.0      # pseudo-counts one outcome adds at an identical statement
SPREAD_FLOOR = 0.5          # cosine below which tests are not neighbours for the spread penalty
REASON_SHARE = 1.0          # prior weight of a 'statement' n/a against the factor's other instructions nearby
REASON_PRIOR_WEIGHT = 2.0   # weight of REASON_SHARE as the prior of the learned share
UNAVAILABLE_PRIOR_WEIGHT = 10.0  # weight, in instructions, of the unavailable_prior setting
INSTRUCTION_REASON_SHARE = 0.5   # prior share of an applicable instruction's n/a tagged 'instruction'
#: Issue 28 item 4: a rewording (a factor of ``REWORDING_FACTORS``: the same request in other
#: words) near-duplicates the plain test it came from, and the same rewording on statement after
#: statement near-duplicates its own tests; applicable almost everywhere, it would write most of a
#: suite. Each test a rewording instruction already wrote in the run multiplies its own score by
#: ``REWORDING_GAMMA`` (AdaT2's reuse penalty, run-wide rather than per block, for rewordings).
REWORDING_FACTORS = frozenset({"wording"})
REWORDING_GAMMA = 0.93


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 0.02, 0.98)
    return np.asarray(np.log(p / (1.0 - p)))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(x, -30.0, 30.0))))


#: fewest statements whose mean embedding stands for the direction they share (:func:`centred_on`)
CENTRE_MIN_STATEMENTS = 10


def centred_on(emb: np.ndarray, others: np.ndarray) -> np.ndarray:
    """``others`` (unit rows) centred on the mean of ``emb``, the run's unit embeddings (``emb``
    itself to centre the run's own). Sentence embeddings of one domain share a large common
    direction (the demo's statements: median pairwise cosine 0.46, 97 % of pairs above 0.2;
    measured in docs/research/selection-log.md), under which every statement is every other's
    neighbour; centred, their cosines spread around 0 as in the simulated worlds the floors were
    tuned on, and cosines between ``emb`` and ``others`` are on that scale. Below
    :data:`CENTRE_MIN_STATEMENTS` rows of ``emb``, ``others`` are returned as they are: the mean is
    then mostly the statements themselves (centred cosines average −1/(S − 1): two statements
    become opposite)."""
    if len(emb) < CENTRE_MIN_STATEMENTS or not len(others):
        return others
    x = others - emb.mean(axis=0)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


@dataclass(frozen=True)
class PastAttempts:
    """Earlier runs' attempts (of this generator model): one row per attempt, with the embedding
    of the statement it was made on, so what an instruction did on a statement last night counts
    as neighbour evidence for tonight's statements like it (``history_weight``)."""

    embeddings: np.ndarray            # (H, d)
    instruction_ids: Sequence[str]
    applicable: Sequence[bool]
    reasons: Sequence[str | None]     # 'statement', 'instruction' or None per attempt

    def __post_init__(self) -> None:
        n = len(self.instruction_ids)
        if len(self.embeddings) != n or len(self.applicable) != n or len(self.reasons) != n:
            raise ValueError("PastAttempts: embeddings, instruction_ids, applicable and reasons differ in length")


def neighbour_weights(cos: np.ndarray, floor: float) -> np.ndarray:
    """``w(h, h') = clip((cos − c₀) / (1 − c₀), 0, 1)`` from the statements' cosine matrix."""
    return np.asarray(np.clip((cos - floor) / (1.0 - floor), 0.0, 1.0))


class PooledSelector(NoveltyOrderSelector):
    """See the module docstring."""

    cfg: PooledSelection

    def __init__(self, *args: Any, past: PastAttempts | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cfg = self.cfg
        self.name = cfg.name
        cold_start = self.name == "pooled-cold-start"  # no catalog prior, no history
        factors = sorted({i.factor for i in self.instructions})
        self.factor_of = np.array([factors.index(i.factor) for i in self.instructions], dtype=int)
        n_s, n_f, n_k = len(self.statement_ids), len(factors), len(self.instructions)
        # o_k: the catalog rate's logit (0 from a cold start)
        self.offset = np.zeros(n_k) if cold_start else \
            _logit(np.array([i.prior_applicability for i in self.instructions], dtype=float))
        instruction_var = np.full(n_k, INSTRUCTION_SD ** 2)  # the prior variance of a_k
        # Earlier runs' (attempts, applicable) per instruction at weight history_weight; not folded
        # into o_k (as AdaT2 folds them into its Beta prior) but data of the model's likelihood
        # (:meth:`_refit`), so what last night taught about an instruction also moves its factor's
        # level b_f, and with it the factor's instructions that have no history. None from a cold start.
        succ, fail = np.array([(0.0, 0.0) if cold_start else self.priors.get(i.instruction_id, (0.0, 0.0))
                               for i in self.instructions]).reshape(-1, 2).T
        self.hist_count, self.hist_success = cfg.history_weight * (succ + fail), cfg.history_weight * succ
        # parameter layout: [β₀ | b_f (F) | a_k (K)]
        self._k0 = 1 + n_f
        prior_var = np.concatenate([[GLOBAL_SD_COLD ** 2 if cold_start else 0.2 ** 2],
                                    np.full(n_f, (FACTOR_SD_COLD if cold_start else FACTOR_SD) ** 2), instruction_var])
        self.prior_precision = 1.0 / prior_var
        self.coef = np.zeros(len(prior_var))
        self.logit_var = prior_var[0] + prior_var[1 + self.factor_of] + instruction_var  # (K,) before data
        self.obs_count = np.zeros(n_k)    # attempts per instruction (the model's sufficient statistics)
        self.obs_success = np.zeros(n_k)
        emb = centred_on(self.novelty.emb, self.novelty.emb) if cfg.centre_embeddings else self.novelty.emb
        cos = emb @ emb.T if n_s else np.zeros((0, 0))  # one S × S product per run
        self.neighbour_w = NEIGHBOUR_WEIGHT * neighbour_weights(cos, NEIGHBOUR_FLOOR)
        self.near_success = np.zeros((n_s, n_k))   # Σ w(h, h') over h' where k applied
        self.near_failure = np.zeros((n_s, n_k))
        self.reason_failure = np.zeros((n_s, n_f))  # Σ w(h, h') over 'statement' n/a of factor f at h'
        self.reason_near = np.zeros((n_s, n_k))     # ... of instruction k itself (not counted twice)
        self.reason_expected = 0.0  # Σ e·p₀ over attempts exposed (e) to a factor-mate's 'statement' reason
        self.reason_missed = 0.0    # Σ e·(p₀ − y): successes the reason evidence correctly took away
        self.obs_weight = cfg.cold_obs_weight if cold_start else 1.0
        self.spread_w = neighbour_weights(cos, SPREAD_FLOOR)
        self.near_factor_tests = np.zeros((n_s, n_f))  # Σ w_spread(h, h') over tests of factor f at h'
        self.side_tests = np.zeros(n_k)  # tests each instruction wrote under a both-sides bonus (prefer())
        self.rewording = np.array([i.factor in REWORDING_FACTORS for i in self.instructions], dtype=bool)
        self._chosen_bonus = False        # whether the pair being learned was chosen under one
        # cold start: from this many tests on, the walk exploits (None: never)
        self.exploit_after = cfg.cold_exploit_after * self.n_target if cold_start else None
        # rule 7: instructions the generator cannot apply anywhere in this run (zero-inflation)
        self.instruction_na = np.zeros(n_k)      # n/a of k whose reason is 'instruction'
        self.statement_na = np.zeros(n_k)        # ... 'statement'
        self.instruction_na_surprise = np.zeros(n_k)  # Σ −log(1 − p₀) over the former
        self.p_unavailable = np.full(n_k, cfg.unavailable_prior)
        # π: the share of instructions this generator cannot apply anywhere in this run, learned by
        # EM over the instructions tried (:meth:`_unavailable`)
        self.unavailable_share = cfg.unavailable_prior
        self.absorbs_unavailable = cold_start  # see applicability()
        if past is not None and len(past.instruction_ids) and not cold_start:
            self._add_past(past, emb)
        if self.hist_count.any():
            for _ in range(3):  # the model's fit to the history alone (warm start for the run)
                self._refit()

    def _add_past(self, past: PastAttempts, emb: np.ndarray) -> None:
        """Earlier runs' outcomes as neighbour evidence at weight ``history_weight`` (their
        per-instruction counts are in the model's fit, ``hist_count``; they do not enter
        the spread penalty, which is about tonight's tests, nor rule 7, which is about this run)."""
        kid = {iid: k for k, iid in enumerate(self.instruction_ids)}
        rows = [j for j, iid in enumerate(past.instruction_ids) if iid in kid]
        if not rows or self.cfg.history_weight <= 0.0 or not len(emb):
            return
        other = np.asarray(past.embeddings, dtype=np.float64)[rows]
        other = other / np.maximum(np.linalg.norm(other, axis=1, keepdims=True), 1e-12)
        if self.cfg.centre_embeddings:
            other = centred_on(self.novelty.emb, other)
        w = self.cfg.history_weight * NEIGHBOUR_WEIGHT * neighbour_weights(emb @ other.T, NEIGHBOUR_FLOOR)  # (S, H)
        ks = np.array([kid[past.instruction_ids[j]] for j in rows])
        fs = self.factor_of[ks]
        ok = np.array([bool(past.applicable[j]) for j in rows])
        why = np.array([past.reasons[j] == "statement" for j in rows]) & ~ok
        n_k, n_f = len(self.instructions), self._k0 - 1
        def add(target: np.ndarray, cols: np.ndarray, mask: np.ndarray, width: int) -> None:
            target += w[:, mask] @ np.eye(width)[cols[mask]]
        add(self.near_success, ks, ok, n_k)
        add(self.near_failure, ks, ~ok, n_k)
        add(self.reason_failure, fs, why, n_f)
        add(self.reason_near, ks, why, n_k)

    # -- the model -----------------------------------------------------------------------------
    def _refit(self) -> None:
        """MAP of the logistic model from per-instruction counts, and the Laplace variance of each θ_k.

        The design is one-hot (β₀ + b_f + a_k) and the a_k block of the Hessian is diagonal, so a
        Newton step eliminates a_k in closed form and solves only the (1 + F)-square Schur
        complement: O(K) vector work and a ~13 × 13 solve, no large matrix products (which a
        multi-threaded BLAS would slow down on a busy machine).
        """
        # From a cold start an outcome counts at weight cold_obs_weight (overdispersion:
        # statements differ, so it says less about the instruction's average than a Bernoulli draw).
        n = self.obs_weight * self.obs_count + self.hist_count
        y = self.obs_weight * self.obs_success + self.hist_success
        f1 = 1 + self.factor_of                   # the column of b_f(k) in the shared block u
        g = self._k0
        pu, pa = self.prior_precision[:g], self.prior_precision[g:]
        coef = self.coef.copy()
        for _ in range(_NEWTON_STEPS):
            u, a = coef[:g], coef[g:]
            p = _sigmoid(u[0] + u[f1] + a + self.offset)
            w = n * p * (1.0 - p)
            resid = y - n * p
            d = w + pa                              # diagonal of the a-block
            grad_u = self._collect(resid) - pu * u
            grad_a = resid - pa * a
            schur = self._schur(w - w * w / d, pu)
            delta_u = np.linalg.solve(schur, grad_u - self._collect(w * grad_a / d))
            delta_a = (grad_a - w * (delta_u[0] + delta_u[f1])) / d
            coef = np.concatenate([u + delta_u, a + delta_a])
        self.coef = coef
        # Laplace variance of x_kᵀ(β₀, b, a) at the final Hessian: q_k (1 − w_k/d_k)² + 1/d_k with
        # q_k = z_kᵀ S⁻¹ z_k, z_k the shared-block indicator of instruction k.
        s_inv = np.linalg.inv(schur)
        q = s_inv[0, 0] + 2.0 * s_inv[0, f1] + s_inv[f1, f1]
        self.logit_var = q * (1.0 - w / d) ** 2 + 1.0 / d

    def _collect(self, v: np.ndarray) -> np.ndarray:
        """Σ_k v_k z_k: the shared-block (β₀, b_f) part of Xᵀv."""
        return np.concatenate([[v.sum()], np.bincount(self.factor_of, weights=v, minlength=self._k0 - 1)])

    def _schur(self, c: np.ndarray, prior: np.ndarray) -> np.ndarray:
        """Σ_k c_k z_k z_kᵀ + diag(prior) over the shared block."""
        by_factor = np.bincount(self.factor_of, weights=c, minlength=self._k0 - 1)
        m = np.diag(prior.astype(float))
        m[0, 0] += c.sum()
        m[0, 1:] += by_factor
        m[1:, 0] += by_factor
        m[np.arange(1, self._k0), np.arange(1, self._k0)] += by_factor
        return m

    def reason_share(self) -> float:
        """How far a 'statement' reason counts against the factor's other instructions nearby.

        Learned: the successes the reason evidence predicted away, over those the model without
        it expected, on the attempts exposed to it; ``reason_share`` is the prior value
        (weight ``reason_prior_weight``). A world where a factor's instructions do not
        share applicability drives it to 0; one where they do, towards 1.
        """
        c = REASON_PRIOR_WEIGHT
        share = (c * REASON_SHARE + self.reason_missed) / (c + self.reason_expected)
        return float(np.clip(share, 0.0, 1.0))

    def _unavailable(self) -> np.ndarray:
        """P(k unavailable | its outcomes) for every instruction (rule 7).

        Unavailable, every attempt of k is an n/a with an 'instruction' reason; available, an
        'instruction'-tagged n/a has probability (1 − p₀)·q, p₀ the applicability the model gave the
        pair before it was tried and q the share of an applicable instruction's n/a that are
        tagged 'instruction' (learned from the instructions that wrote a test). One test makes k
        available; a 'statement'-tagged or untagged n/a is taken as saying nothing either way.
        """
        cfg = self.cfg
        prior = cfg.unavailable_prior
        if prior <= 0.0:
            return np.zeros(len(self.instructions))
        works = self.obs_success > 0
        tagged_i, tagged_s = self.instruction_na[works].sum(), self.statement_na[works].sum()
        q = (2.0 * INSTRUCTION_REASON_SHARE + tagged_i) / (2.0 + tagged_i + tagged_s)
        log_lr = self.instruction_na_surprise - self.instruction_na * np.log(q)  # log L(unavailable)/L(available)
        lr = np.exp(np.minimum(log_lr, 50.0))

        def posterior(pi: float) -> np.ndarray:
            odds = pi / (1.0 - pi) * lr
            return np.where(works, 0.0, odds / (1.0 + odds))

        tried = self.obs_count > 0
        pi = prior
        for _ in range(3):  # EM for π over the instructions tried
            pi = float((UNAVAILABLE_PRIOR_WEIGHT * prior + posterior(pi)[tried].sum())
                       / (UNAVAILABLE_PRIOR_WEIGHT + tried.sum()))
        self.unavailable_share = pi
        return posterior(pi)

    def applicability(self, h: int, arms: np.ndarray, *, reasons: bool = True,
                      unavailable: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and sd of θ(h, k) for each k in ``arms`` (model + neighbour evidence;
        with ``unavailable``, times the chance that k can be applied in this run at all, rule 7)."""
        c = self.coef
        p = _sigmoid(c[0] + c[1 + self.factor_of[arms]] + c[self._k0 + arms] + self.offset[arms])
        var = self.logit_var[arms]
        strength = np.clip(1.0 / np.maximum(p * (1 - p) * var, 1e-9) - 1.0, 1.0, _MAX_STRENGTH)
        f = self.factor_of[arms]
        succ = self.near_success[h, arms]
        fail = self.near_failure[h, arms]
        # "the statement lacks what this kind of change needs": counts against the whole factor nearby
        if reasons:
            fail = fail + self.reason_share() * (self.reason_failure[h, f] - self.reason_near[h, arms])
        a, b = strength * p + succ, strength * (1 - p) + fail
        total = a + b
        mean, sd = a / total, np.sqrt(a * b / (total * total * (total + 1.0)))
        if not unavailable or self.cfg.unavailable_prior <= 0.0:
            return mean, sd
        # A mixture of 0 (unavailable) and the model's θ. With a catalog, o_k carries the rate
        # and β₀ (sd 0.2) cannot absorb a run-wide share of unavailable instructions, so an
        # instruction without evidence is unavailable with probability π. From a cold start β₀
        # is learned from every outcome, unavailable instructions' n/a included, so its θ of an
        # instruction without evidence already is the marginal rate: only k's own evidence (P_k
        # above π) moves it (a test rules unavailability out; it does not raise θ above the model's).
        keep = 1.0 - self.p_unavailable[arms]
        if self.absorbs_unavailable:
            keep = np.minimum(keep / (1.0 - self.unavailable_share), 1.0)
        second = keep * (sd * sd + mean * mean)
        mean = keep * mean
        return mean, np.sqrt(np.maximum(second - mean * mean, 0.0))

    def _eligible_or_stop(self) -> np.ndarray | None:
        """The walk's open statements, less near-duplicates of tested ones before the last pass."""
        floor = self.cfg.defer_novelty
        while True:
            open_ = super()._eligible_or_stop()
            if open_ is None or floor <= 0.0 or self.pass_no >= self.cfg.max_passes:
                return open_
            near = open_[self.novelty.novelty(open_) < floor]
            if len(near) < len(open_):
                return open_[~np.isin(open_, near)]
            self.set_aside[near] = True  # the whole rest of the block waits for the next pass

    def exploiting(self) -> bool:
        """Cold start, second half of the run (``cold_exploit_after``): the walk exploits."""
        return self.exploit_after is not None and self.tests >= self.exploit_after

    # -- choice and learning -------------------------------------------------------------------
    def _choose(self, eligible: np.ndarray, t: int) -> tuple[int, int, dict[str, Any]]:
        if not self.exploiting():
            return super()._choose(eligible, t)
        # The block's statement with the best pair; untested ones first, as in the novelty order.
        nu = self.novelty.novelty(eligible)
        best = np.array([self._scores(int(x), self.untried(int(x)))[0].max() for x in eligible])
        i = argmax_lexicographic(self.rng, (nu > 0).astype(float), best)
        h = int(eligible[i])
        k, scores = self._choose_instruction(h, self.untried(h), t)
        return h, k, {"novelty": round(float(nu[i]), 6), "exploit": True, **scores}

    def _scores(self, h: int, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(score, E[θ], sd[θ]) of statement ``h`` paired with each instruction in ``arms``."""
        mean, sd = self.applicability(h, arms)
        penalty = self.cfg.gamma ** self.block_tests[self.block, arms] \
            * self.cfg.spread_gamma ** self.near_factor_tests[h, self.factor_of[arms]] \
            * self.side_weights(h, arms) \
            * self.rewording_penalty(arms) \
            * self.cfg.repeat_gamma ** self.repeated(arms)
        # ^ the caller's prefer() hook (both sides of a boundary); near-duplicate rewordings; the
        #   caller's count_repeats() hook (an instruction's tests that expected an earlier one's outcome)
        score = (mean + self.cfg.kappa * sd) * penalty
        return score, mean, sd

    def rewording_penalty(self, arms: np.ndarray) -> np.ndarray:
        """Each instruction's score factor for the near-duplicates it would add: for a rewording,
        ``REWORDING_GAMMA`` per test it already wrote in the run (the walk's ``instruction_tests``);
        1 for any other instruction."""
        return np.where(self.rewording[arms], REWORDING_GAMMA ** self.instruction_tests[arms], 1.0)

    def side_weights(self, h: int, arms: np.ndarray) -> np.ndarray:
        """The :meth:`prefer` weights with each instruction's bonus (weight − 1) shrunk by
        ``side_gamma`` per test it already wrote under a bonus. The bonus is for reaching
        the side a statement's tests lack; which boundary a test reaches only the audit says, and
        an instruction that turns every request into the same kind of refusal (another user's
        order) reaches the same boundary each time. Without the decay ``pooled``, sure of what
        applies, put the bonus behind one or two such instructions for most of a run."""
        w = self.weights(h, arms)
        return np.asarray(1.0 + (w - 1.0) * self.cfg.side_gamma ** self.side_tests[arms])

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        score, mean, sd = self._scores(h, arms)
        i = argmax_lexicographic(self.rng, score, mean)
        k = int(arms[i])
        self._chosen_bonus = bool(self.weights(h, np.array([k]))[0] > 1.0)
        return k, {"score": round(float(score[i]), 6), "theta_mean": round(float(mean[i]), 6),
                   "theta_sd": round(float(sd[i]), 6), "u": int(self.block_tests[self.block, k]),
                   "p_unavailable": round(float(self.p_unavailable[k]), 6),
                   "top": self._top(arms, score, k)}

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        f = self.factor_of[k]
        if not applicable and self.na_reason == "instruction":
            p0 = float(self.applicability(h, np.array([k]), unavailable=False)[0][0])
            self.instruction_na[k] += 1
            self.instruction_na_surprise[k] -= np.log(max(1.0 - p0, 1e-6))
        elif not applicable and self.na_reason == "statement":
            self.statement_na[k] += 1
        exposure = self.reason_failure[h, f] - self.reason_near[h, k]
        if exposure > 1e-9:
            p0 = float(self.applicability(h, np.array([k]), reasons=False)[0][0])
            self.reason_expected += exposure * p0
            self.reason_missed += exposure * (p0 - float(applicable))
        self.obs_count[k] += 1
        w = self.neighbour_w[:, h]
        if applicable:
            self.obs_success[k] += 1
            self.near_success[:, k] += w
            self.near_factor_tests[:, f] += self.spread_w[:, h]
            self.side_tests[k] += self._chosen_bonus
        else:
            self.near_failure[:, k] += w
            if self.na_reason == "statement":
                self.reason_failure[:, f] += w
                self.reason_near[:, k] += w
            if self.exploiting():
                self.set_aside[h] = True  # m = 1: its next-best pair is worse than another statement's best
        self._refit()
        self.p_unavailable = self._unavailable()
