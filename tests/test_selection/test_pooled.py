"""The pooled selector: evidence shared over factors and statement neighbours; errors teach nothing."""

from __future__ import annotations

import numpy as np
import pytest

from adat.config import parse_selector
from adat.selection import make_selector
from adat.selection.pooled import CENTRE_MIN_STATEMENTS, NEIGHBOUR_WEIGHT, PastAttempts, PooledSelector
from tests.test_selection.synthetic import (
    always_pass,
    drive,
    embeddings,
    hashed_outcome,
    instructions,
    statements,
)


def _pooled(embeddings: np.ndarray, priors: list[float], factors: list[str], *, cold_start: bool = False,
            history: dict[str, tuple[float, float]] | None = None, past: PastAttempts | None = None,
            **cfg: object) -> PooledSelector:
    name = "pooled-cold-start" if cold_start else "pooled"
    sel = make_selector(parse_selector({"name": name, "block_size": len(embeddings), **cfg}),
                        statements(len(embeddings)), instructions(priors, factors), embeddings, 10, seed=3,
                        priors=history, past=past)
    assert isinstance(sel, PooledSelector)
    return sel


def _emb() -> np.ndarray:
    """s0 and s1 are near-duplicates; s2 is unrelated."""
    e = np.zeros((3, 4))
    e[0, 0], e[1, 0], e[1, 1], e[2, 2] = 1.0, 0.95, 0.31, 1.0
    return e


def test_a_failure_lowers_the_instruction_on_neighbours_and_its_factor_more_than_elsewhere() -> None:
    sel = _pooled(_emb(), [0.9, 0.6, 0.6], ["wording", "wording", "value"])
    pair = sel.next_pair()
    assert pair is not None and pair.instruction_id == "k0"  # highest prior first
    h = sel.statement_ids.index(pair.statement_id)
    near = 1 if h == 0 else 0 if h == 1 else None
    assert near is not None or h == 2
    before = {j: sel.applicability(j, np.arange(3))[0] for j in range(3)}
    sel.update(pair, applicable=False, verdict=None)
    after = {j: sel.applicability(j, np.arange(3))[0] for j in range(3)}
    far = 2 if h != 2 else 0
    if near is not None:
        assert after[near][0] < after[far][0] < before[far][0]  # neighbour evidence on top of the model
    # the same factor's other instruction drops, the other factor's barely
    assert before[far][1] - after[far][1] > before[far][2] - after[far][2] >= -1e-9


def test_an_error_moves_nothing() -> None:
    sel = _pooled(_emb(), [0.9, 0.6, 0.6], ["wording", "wording", "value"], max_not_applicable=1)
    pair = sel.next_pair()
    assert pair is not None
    h = sel.statement_ids.index(pair.statement_id)
    snapshot = [sel.applicability(j, np.arange(3)) for j in range(3)]
    sel.update(pair, applicable=False, verdict=None, error=True)
    for j in range(3):
        mean, sd = sel.applicability(j, np.arange(3))
        assert mean == pytest.approx(snapshot[j][0]) and sd == pytest.approx(snapshot[j][1])
    assert sel.na_in_pass[h] == 0 and not sel.set_aside[h] and sel.errors == 1


def test_history_sharpens_the_prior_and_cold_start_ignores_catalog_and_history() -> None:
    emb, priors, factors = _emb(), [0.5, 0.5, 0.5], ["value", "value", "value"]
    plain = _pooled(emb, priors, factors)
    seen = _pooled(emb, priors, factors, history={"k0": (20.0, 0.0)})
    # the model's θ (rule 7's chance that an instruction is unavailable in this run is per run)
    _, sd_plain = plain.applicability(0, np.arange(3), unavailable=False)
    mean_seen, sd_seen = seen.applicability(0, np.arange(3), unavailable=False)
    assert mean_seen[0] > mean_seen[1] and sd_seen[0] < sd_plain[0]
    cold = _pooled(emb, [0.9, 0.1, 0.5], factors, cold_start=True, history={"k0": (20.0, 0.0)})
    mean_cold, _ = cold.applicability(0, np.arange(3))
    assert mean_cold == pytest.approx([0.5, 0.5, 0.5])


def test_deterministic_and_within_the_walk() -> None:
    emb = np.random.default_rng(1).normal(size=(12, 6))
    runs = [drive(_pooled(emb, [0.9, 0.6, 0.3, 0.5], ["a", "a", "b", "b"], block_size=4), hashed_outcome)
            for _ in range(2)]
    assert [(p.statement_id, p.instruction_id) for p in runs[0]] == [(p.statement_id, p.instruction_id) for p in runs[1]]
    assert len({(p.statement_id, p.instruction_id) for p in runs[0]}) == len(runs[0])  # never a pair twice
    assert all(p.scores["selector"] == "pooled" and "theta_mean" in p.scores for p in runs[0])
    done = _pooled(emb, [0.9, 0.6, 0.3, 0.5], ["a", "a", "b", "b"], block_size=4)
    drive(done, always_pass)
    assert done.stop_reason() == "target" and done.tests == 10


def test_the_prefer_hook_weighs_the_instruction_choice() -> None:
    sel = _pooled(_emb(), [0.9, 0.6, 0.6], ["wording", "wording", "value"])
    sel.prefer(lambda sid, kid: 0.1 if kid == "k0" else 1.0)
    pair = sel.next_pair()
    assert pair is not None and pair.instruction_id != "k0"


def test_the_structured_newton_fit_is_the_dense_laplace_fit() -> None:
    """The closed-form elimination of a_k gives the MAP and Laplace variances of the full model."""
    rng = np.random.default_rng(5)
    factors = ["a", "a", "b", "c", "c", "c"]
    sel = _pooled(rng.normal(size=(4, 5)), [0.9, 0.4, 0.6, 0.3, 0.5, 0.7], factors)
    sel.obs_count[:] = [3, 0, 2, 5, 1, 4]
    sel.obs_success[:] = [2, 0, 2, 1, 0, 4]
    for _ in range(30):
        sel._refit()
    f_of, n_k, k0 = sel.factor_of, len(factors), sel._k0
    x = np.zeros((n_k, k0 + n_k))
    x[:, 0] = 1.0
    x[np.arange(n_k), 1 + f_of] = 1.0
    x[np.arange(n_k), k0 + np.arange(n_k)] = 1.0
    coef = np.zeros(k0 + n_k)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ coef + sel.offset)))
        hess = (x * (sel.obs_count * p * (1 - p))[:, None]).T @ x + np.diag(sel.prior_precision)
        grad = x.T @ (sel.obs_success - sel.obs_count * p) - sel.prior_precision * coef
        coef = coef + np.linalg.solve(hess, grad)
    assert sel.coef == pytest.approx(coef, abs=1e-8)
    assert sel.logit_var == pytest.approx(np.einsum("ij,ji->i", x, np.linalg.solve(hess, x.T)), abs=1e-8)


@pytest.mark.parametrize("weight", [0.5, 0.25])
def test_a_cold_start_outcome_counts_at_the_observation_weight(weight: float) -> None:
    """From a cold start, n outcomes fit like n·w Bernoulli observations (less sure than n); with a
    catalog every outcome counts in full."""
    factors = ["a", "a", "b"]

    def fitted(counts: list[float], successes: list[float], **kw: object) -> PooledSelector:
        sel = _pooled(_emb(), [0.5, 0.5, 0.5], factors, **kw)
        sel.obs_count[:], sel.obs_success[:] = counts, successes
        for _ in range(30):
            sel._refit()
        return sel

    n, y = [4.0, 2.0, 0.0], [1.0, 2.0, 0.0]
    cold = fitted(n, y, cold_start=True, cold_obs_weight=weight)
    scaled = fitted([weight * v for v in n], [weight * v for v in y], cold_start=True, cold_obs_weight=1.0)
    unweighted = fitted(n, y, cold_start=True, cold_obs_weight=1.0)
    assert cold.coef == pytest.approx(scaled.coef, abs=1e-8)
    assert cold.logit_var == pytest.approx(scaled.logit_var, abs=1e-8)
    assert (cold.logit_var[:2] > unweighted.logit_var[:2]).all()
    warm = fitted(n, y, cold_obs_weight=weight)
    assert warm.coef == pytest.approx(fitted(n, y, cold_obs_weight=1.0).coef, abs=1e-12)


@pytest.mark.parametrize(("spread_gamma", "second"), [(0.5, "k2"), (1.0, "k0")])
def test_a_factor_that_made_a_test_on_a_near_duplicate_weighs_less(spread_gamma: float, second: str) -> None:
    emb = _emb()[:2]  # two near-duplicate statements
    sel = _pooled(emb, [0.9, 0.85, 0.8], ["sequence", "sequence", "value"], spread_gamma=spread_gamma)  # no rewording
    first = sel.next_pair()
    assert first is not None and first.instruction_id == "k0"
    sel.update(first, applicable=True, verdict="pass")
    nxt = sel.next_pair()
    assert nxt is not None and nxt.statement_id != first.statement_id
    assert nxt.instruction_id == second  # the other kind of change on the near-duplicate, or k0 again


def test_a_statement_reason_counts_against_the_factor_on_neighbours_an_instruction_reason_does_not() -> None:
    after = {}
    for reason in ("statement", "instruction", None):  # rule 4 alone: rule 7 (below) off
        sel = _pooled(_emb(), [0.9, 0.6, 0.6], ["wording", "wording", "value"], unavailable_prior=0.0)
        pair = sel.next_pair()
        assert pair is not None and pair.instruction_id == "k0"
        h = sel.statement_ids.index(pair.statement_id)
        sel.update(pair, applicable=False, verdict=None, reason=reason)
        after[reason] = sel.applicability(h, np.arange(3))[0]
    # the same factor's other instruction, on the same statement, drops further for a statement reason
    assert after["statement"][1] < after["instruction"][1] - 0.02
    # an instruction reason (or none) teaches exactly what an unexplained n/a does
    assert after["instruction"] == pytest.approx(after[None])
    # the other factor and the declined instruction itself move the same either way
    assert after["statement"][2] == pytest.approx(after["instruction"][2])
    assert after["statement"][0] == pytest.approx(after["instruction"][0])


@pytest.mark.parametrize("name", ["adat2", "pooled"])
def test_a_reason_needs_a_declined_pair_and_a_known_kind(name: str) -> None:
    sel = make_selector(parse_selector({"name": name}), statements(3), instructions([0.5, 0.5], ["a", "b"]), _emb(), 3)
    pair = sel.next_pair()
    assert pair is not None
    with pytest.raises(ValueError, match="reason 'statement'"):
        sel.update(pair, applicable=True, verdict="pass", reason="statement")
    with pytest.raises(ValueError, match="reason 'other'"):
        sel.update(pair, applicable=False, verdict=None, reason="other")


def test_adat2_ignores_reasons() -> None:
    runs = []
    for reason in ("statement", "instruction"):
        sel = make_selector(parse_selector({"name": "adat2"}), statements(6), instructions([0.6, 0.5, 0.4], ["a", "a", "b"]),
                            np.eye(6), 5, seed=1)
        pairs = []
        while (pair := sel.next_pair()) is not None:
            pairs.append((pair.statement_id, pair.instruction_id))
            sel.update(pair, applicable=False, verdict=None, reason=reason)
        runs.append(pairs)
    assert runs[0] == runs[1]


@pytest.mark.parametrize(("defer", "second", "third_pass"), [(0.3, "s2", 2), (0.0, "the twin", 1)])
def test_a_near_duplicate_of_a_tested_statement_waits_for_the_last_pass(defer: float, second: str,
                                                                         third_pass: int) -> None:
    # blocks [s0, s1] and [s2]; s0 and s1 are near-duplicates (cos 0.95: novelty 0.05 once one has a test)
    sel = _pooled(_emb(), [0.9, 0.85, 0.8], ["wording", "wording", "value"], block_size=2,
                  defer_novelty=defer)
    seen = []
    for _ in range(3):
        pair = sel.next_pair()
        assert pair is not None
        seen.append((pair.statement_id, pair.pass_no))
        sel.update(pair, applicable=True, verdict="pass")
    twin = {"s0": "s1", "s1": "s0"}[seen[0][0]]
    assert seen[1] == ((twin if second == "the twin" else second), 1)
    assert seen[2][1] == third_pass and {seen[0][0], seen[1][0], seen[2][0]} == {"s0", "s1", "s2"}


@pytest.mark.parametrize(("name", "exploit_after", "moves_on"), [("pooled-cold-start", 0.5, True),
                                                                  ("pooled-cold-start", 1.0, False),
                                                                  ("pooled", 0.5, False)])
def test_a_cold_start_exploits_in_the_second_half_of_the_run(name: str, exploit_after: float, moves_on: bool) -> None:
    """From a cold start, once n/2 tests exist, one n/a sets a statement aside for the pass and the
    walk takes the statement with the best pair; before that (and with a catalog) m = 3 holds."""
    cfg = parse_selector({"name": name, "block_size": 6, "cold_exploit_after": exploit_after})
    sel = make_selector(cfg, statements(6), instructions([0.5] * 3, ["wording", "value", "scope"]), np.eye(6), 4,
                        seed=0)
    assert isinstance(sel, PooledSelector)
    first = sel.next_pair()
    assert first is not None
    declined = sel.statement_ids.index(first.statement_id)
    sel.update(first, applicable=False, verdict=None)  # early: the statement stays open (m = 3)
    assert not sel.set_aside[declined]
    for _ in range(2):  # two tests elsewhere: n/2 of n = 4
        pair = sel.next_pair()
        assert pair is not None
        if pair.statement_id == first.statement_id:
            sel.update(pair, applicable=False, verdict=None)
            pair = sel.next_pair()
            assert pair is not None
        sel.update(pair, applicable=True, verdict="pass")
    chosen = []
    while (pair := sel.next_pair()) is not None and pair.pass_no == 1:
        h = sel.statement_ids.index(pair.statement_id)
        chosen.append(h)
        sel.update(pair, applicable=False, verdict=None)
        assert bool(sel.set_aside[h]) == (moves_on or bool(sel.na_in_pass[h] >= 3))
    if moves_on:
        # one attempt per open statement, the once-declined one (its best pair tried) last
        assert len(chosen) == len(set(chosen)) and chosen[-1] == declined


def test_similarity_is_measured_on_embeddings_centred_on_their_mean() -> None:
    # one domain: every statement shares a large common direction; s0 and s1 also share their own
    distinct = np.eye(12)
    distinct[1] = 0.9 * distinct[0] + 0.3 * distinct[1]
    emb = np.hstack([np.full((12, 1), 3.0), distinct])
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    assert (emb @ emb.T > 0.8).all()  # raw: everyone is everyone's neighbour
    priors, factors = [0.5, 0.5], ["wording", "value"]
    centred = _pooled(emb, priors, factors)
    assert centred.neighbour_w[0, 1] > 0.5 and (centred.neighbour_w[0, 2:] == 0).all()
    raw = _pooled(emb, priors, factors, centre_embeddings=False)
    assert (raw.neighbour_w[0, 2:] > 0.5).all() and (raw.spread_w[0, 2:] > 0.5).all()
    few = _pooled(emb[:CENTRE_MIN_STATEMENTS - 1], priors, factors)  # too few for a mean: as they are
    assert (few.neighbour_w == raw.neighbour_w[:CENTRE_MIN_STATEMENTS - 1, :CENTRE_MIN_STATEMENTS - 1]).all()


@pytest.mark.parametrize(("side_gamma", "spread"), [(1.0, False), (0.5, True)])
def test_the_both_sides_bonus_of_an_instruction_shrinks_with_its_tests_under_it(side_gamma: float,
                                                                               spread: bool) -> None:
    # Two movers that always apply, k0 a little likelier; every statement lacks a side they reach.
    # Without the decay k0 takes the bonus on every statement; with it the bonus moves on to k1.
    sel = _pooled(embeddings(12, seed=4), [0.9, 0.8, 0.95], ["value", "value", "wording"],
                  side_gamma=side_gamma, defer_novelty=0.0)
    sel.prefer(lambda sid, kid: 4.0 if kid in ("k0", "k1") else 1.0)
    used = [p.instruction_id for p in drive(sel, always_pass)]
    assert len(used) == 10 and "k2" not in used  # the bonus still decides against the rewording
    assert ("k1" in used) is spread
    if spread:
        assert sel.side_tests[0] >= 1 and sel.side_tests[1] >= 1


@pytest.mark.parametrize(("repeat_gamma", "spread"), [(1.0, False), (0.5, True)])
def test_an_instruction_whose_tests_repeat_one_outcome_gives_way(repeat_gamma: float, spread: bool) -> None:
    # k0 and k1 always apply, k0 a little likelier; every test of k0 expects the outcome of its
    # first (the hook's count), k1's differ. Without the penalty k0 writes every test.
    sel = _pooled(embeddings(12, seed=4), [0.9, 0.8], ["identity", "value"], repeat_gamma=repeat_gamma,
                  defer_novelty=0.0)
    sel.count_repeats(lambda kid: max(int(sel.instruction_tests[0]) - 1, 0) if kid == "k0" else 0)
    used = [p.instruction_id for p in drive(sel, always_pass)]
    assert len(used) == 10 and "k0" in used
    assert ("k1" in used) is spread, used


def _one_dead_instruction(reason: str | None, **cfg: object) -> tuple[PooledSelector, list[str]]:
    """k0 (catalog 0.9) is declined on every statement with ``reason``; k1, of the same factor, always applies."""
    sel = _pooled(np.eye(16), [0.9, 0.5], ["value", "value"], **{"max_not_applicable": 2, **cfg})
    sel.n_target = 14
    chosen = []
    while (pair := sel.next_pair()) is not None:
        chosen.append(pair.instruction_id)
        dead = pair.instruction_id == "k0"
        sel.update(pair, applicable=not dead, verdict=None if dead else "pass", reason=reason if dead else None)
    return sel, chosen


def test_an_instruction_the_generator_says_it_cannot_apply_is_soon_dropped() -> None:
    """Rule 7: 'instruction' reasons on every attempt make k0 unavailable in this run; without the
    rule the factor's success keeps k0's θ up (its own deviation has a tight prior) and it is
    tried on statement after statement, as on the reference agent (docs/selection.md)."""
    on, chosen_on = _one_dead_instruction("instruction")
    off, chosen_off = _one_dead_instruction("instruction", unavailable_prior=0.0)
    assert chosen_off.count("k0") >= 8
    assert chosen_on.count("k0") <= 4 < chosen_off.count("k0") - 4
    assert on.p_unavailable[0] > 0.5 and on.p_unavailable[1] == 0.0  # one surprising n/a at θ ≈ 0.9
    assert off.p_unavailable.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("reason", ["statement", None])
def test_only_instruction_reasons_say_an_instruction_is_unavailable(reason: str | None) -> None:
    sel, chosen = _one_dead_instruction(reason)
    off, chosen_off = _one_dead_instruction(reason, unavailable_prior=0.0)
    assert sel.p_unavailable[0] == pytest.approx(sel.unavailable_share)  # no evidence beyond the prior
    assert chosen == chosen_off


@pytest.mark.parametrize("cold_start", [False, True])
def test_one_test_makes_an_instruction_available_and_untried_ones_carry_the_share_with_a_catalog(
        cold_start: bool) -> None:
    sel = _pooled(np.eye(6), [0.6, 0.6, 0.6], ["a", "a", "b"], cold_start=cold_start, max_not_applicable=3)
    pair = sel.next_pair()
    assert pair is not None
    k = int(pair.instruction_id[1:])
    untried = np.array([j for j in range(3) if j != k])
    sel.update(pair, applicable=False, verdict=None, reason="instruction")
    pi = sel.unavailable_share
    assert sel.p_unavailable[k] > pi > 0.0
    h = sel.statement_ids.index(pair.statement_id)
    with_rule = sel.applicability(h, untried)[0]
    without = sel.applicability(h, untried, unavailable=False)[0]
    # with a catalog the model cannot absorb the run's share of unavailable instructions; from a
    # cold start its learned level already is the marginal rate
    np.testing.assert_allclose(with_rule, without if cold_start else (1.0 - pi) * without)
    assert sel.applicability(h, np.array([k]))[0][0] < sel.applicability(h, np.array([k]), unavailable=False)[0][0]
    while (pair := sel.next_pair()) is not None and int(pair.instruction_id[1:]) != k:
        sel.update(pair, applicable=False, verdict=None)
    assert pair is not None
    sel.update(pair, applicable=True, verdict="pass")
    assert sel.p_unavailable[k] == 0.0
    assert sel.applicability(h, np.array([k]))[0][0] == pytest.approx(
        sel.applicability(h, np.array([k]), unavailable=False)[0][0])


def test_history_moves_the_factor_so_its_untried_instructions_move_too() -> None:
    """Earlier runs' counts enter the model as data: 20 of 20 applicable for k0 raises its factor
    mate k1 (no history of its own) above k2 of another factor with the same catalog rate; folded
    into k0's prior rate alone (AdaT2's way) they would leave k1 and k2 equal."""
    emb, priors, factors = _emb(), [0.5, 0.5, 0.5], ["value", "value", "wording"]
    plain = _pooled(emb, priors, factors)
    seen = _pooled(emb, priors, factors, history={"k0": (20.0, 0.0)})
    mean_plain, _ = plain.applicability(0, np.arange(3), unavailable=False)
    mean_seen, _ = seen.applicability(0, np.arange(3), unavailable=False)
    assert mean_plain[1] == pytest.approx(mean_plain[2])
    assert mean_seen[0] > mean_seen[1] > mean_seen[2] + 0.05
    # the same history, none at the other's expense: 0/20 lowers the factor instead
    low = _pooled(emb, priors, factors, history={"k0": (0.0, 20.0)}).applicability(0, np.arange(3), unavailable=False)[0]
    assert low[0] < low[1] < low[2] - 0.05
    # weight 0: the history is not used at all
    off = _pooled(emb, priors, factors, history={"k0": (20.0, 0.0)}, history_weight=0.0)
    np.testing.assert_allclose(off.applicability(0, np.arange(3))[0], plain.applicability(0, np.arange(3))[0])


def _past(vectors: list[list[float]], instruction: str, applicable: bool, reason: str | None = None) -> PastAttempts:
    return PastAttempts(np.array(vectors, dtype=float), [instruction] * len(vectors), [applicable] * len(vectors),
                        [reason] * len(vectors))


def test_an_earlier_runs_outcome_counts_for_this_runs_statements_near_its_statement() -> None:
    """Last night k0 failed twice on a statement like s0 (not like s2): tonight k0 is expected to
    fail on s0 and its near-duplicate s1 more than on s2, at half an outcome of this run."""
    emb, priors, factors = _emb(), [0.6, 0.6, 0.6], ["wording", "wording", "value"]
    near_s0 = [[1.0, 0.05, 0.0, 0.0], [0.98, 0.1, 0.0, 0.0]]
    plain = _pooled(emb, priors, factors, centre_embeddings=False)
    seen = _pooled(emb, priors, factors, past=_past(near_s0, "k0", False), centre_embeddings=False)
    before = np.array([plain.applicability(j, np.arange(3))[0] for j in range(3)])
    after = np.array([seen.applicability(j, np.arange(3))[0] for j in range(3)])
    assert after[0, 0] < after[1, 0] < after[2, 0] == pytest.approx(before[2, 0])
    np.testing.assert_allclose(after[:, 2], before[:, 2])   # another factor's instruction: unmoved
    # weighted as half of one of this run's outcomes on that statement
    tonight = _pooled(emb, priors, factors, centre_embeddings=False)
    assert seen.near_failure[0, 0] == pytest.approx(0.5 * NEIGHBOUR_WEIGHT * sum(
        float(np.clip((np.dot(emb[0], v) / np.linalg.norm(v) - 0.2) / 0.8, 0, 1)) for v in np.array(near_s0)))
    assert tonight.near_failure.sum() == 0.0
    # a 'statement' reason counts against the factor's other instruction nearby, as in the run
    why = _pooled(emb, priors, factors, past=_past(near_s0, "k0", False, "statement"), centre_embeddings=False)
    assert why.applicability(0, np.array([1]))[0][0] < seen.applicability(0, np.array([1]))[0][0]
    # off, and from a cold start: no evidence from earlier runs
    for sel in (_pooled(emb, priors, factors, past=_past(near_s0, "k0", False), history_weight=0.0),
                _pooled(emb, priors, factors, past=_past(near_s0, "k0", False), cold_start=True)):
        assert sel.near_failure.sum() == 0.0 and sel.reason_failure.sum() == 0.0
    # an instruction no longer in the catalog is left out
    gone = _pooled(emb, priors, factors, past=_past(near_s0, "k-retired", False), centre_embeddings=False)
    assert gone.near_failure.sum() == 0.0


def test_past_attempts_must_align() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        PastAttempts(np.zeros((2, 4)), ["k0"], [True, False], [None, None])
