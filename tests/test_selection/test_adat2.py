"""AdaT2's instruction score: posterior updates per outcome, prior at t = 1, reuse penalty, static."""

from __future__ import annotations

import json

import pytest

from adat.selection import AdaT2Selector
from tests.test_selection.synthetic import build


def _adat2(**kw: object) -> AdaT2Selector:
    sel = build("adat2", **kw)  # type: ignore[arg-type]
    assert isinstance(sel, AdaT2Selector)
    return sel


@pytest.mark.parametrize(("applicable", "verdict", "theta_delta", "mu_delta"), [
    (False, None, (0.0, 1.0), (0.0, 0.0)),
    (True, "pass", (1.0, 0.0), (1.0, 0.0)),
    (True, "inconclusive", (1.0, 0.0), (0.5, 0.5)),
    (True, "fail", (1.0, 0.0), (0.0, 1.0)),
    (True, None, (1.0, 0.0), (0.0, 0.0)),  # a test without a verdict: no evidence about μ
])
def test_posterior_update_for_each_outcome(applicable: bool, verdict: str | None,
                                           theta_delta: tuple[float, float], mu_delta: tuple[float, float]) -> None:
    sel = _adat2()
    pair = sel.next_pair()
    assert pair is not None
    k = sel.instruction_ids.index(pair.instruction_id)
    before = (sel.theta.a[k], sel.theta.b[k], sel.mu.a[k], sel.mu.b[k])
    sel.update(pair, applicable=applicable, verdict=verdict)
    after = (sel.theta.a[k], sel.theta.b[k], sel.mu.a[k], sel.mu.b[k])
    assert tuple(x - y for x, y in zip(after, before, strict=True)) == pytest.approx((*theta_delta, *mu_delta))


def test_a_generator_error_leaves_theta_mu_and_m_untouched() -> None:
    sel = _adat2(n_statements=2, block_size=2, max_not_applicable=1)
    pair = sel.next_pair()
    assert pair is not None
    h, k = sel.statement_ids.index(pair.statement_id), sel.instruction_ids.index(pair.instruction_id)
    before = (sel.theta.a.copy(), sel.theta.b.copy(), sel.mu.a.copy(), sel.mu.b.copy())
    sel.update(pair, applicable=False, verdict=None, error=True)
    assert all((x == y).all() for x, y in zip(before, (sel.theta.a, sel.theta.b, sel.mu.a, sel.mu.b), strict=True))
    assert sel.na_in_pass[h] == 0 and not sel.set_aside[h]  # m = 1 would have set it aside on an n/a
    assert sel.attempts == 1 and sel.errors == 1 and sel.tests == 0
    assert sel.tried[h, k]  # spent: the budget bounds an endpoint that keeps failing
    with pytest.raises(ValueError, match="not an error"):
        nxt = sel.next_pair()
        assert nxt is not None
        sel.update(nxt, applicable=True, verdict="pass", error=True)


def test_first_choice_follows_the_prior_because_q1_is_zero() -> None:
    sel = _adat2(priors=[0.2, 0.9, 0.5])
    pair = sel.next_pair()
    assert pair is not None and pair.instruction_id == "k1"
    scores = json.loads(pair.scores_json())
    assert scores["q"] == 0.0 and scores["score"] == 0.0 and scores["novelty"] == 1.0


def test_reuse_penalty_changes_the_choice() -> None:
    def second_choice(gamma: float) -> str:
        sel = _adat2(priors=[0.9, 0.8], n_statements=3, block_size=3, gamma=gamma)
        first = sel.next_pair()
        assert first is not None and first.instruction_id == "k0"
        sel.update(first, applicable=True, verdict="pass")
        second = sel.next_pair()
        assert second is not None
        return second.instruction_id

    # Without the penalty k0's better posterior wins again; with γ = 0.5 its score halves.
    assert second_choice(1.0) == "k0"
    assert second_choice(0.5) == "k1"


def test_reuse_penalty_counts_tests_in_the_current_block_only() -> None:
    sel = _adat2(priors=[0.9, 0.8], n_statements=2, block_size=1, gamma=0.5)
    first = sel.next_pair()
    assert first is not None and first.block == 0
    sel.update(first, applicable=True, verdict="pass")
    second = sel.next_pair()
    assert second is not None and second.block == 1
    assert second.instruction_id == "k0" and json.loads(second.scores_json())["u"] == 0


def test_static_ranking_never_updates_its_posteriors() -> None:
    sel = build("static")
    assert isinstance(sel, AdaT2Selector)
    a, b = sel.theta.a.copy(), sel.theta.b.copy()
    for outcome in [(False, None), (True, "pass"), (True, "fail")]:
        pair = sel.next_pair()
        assert pair is not None
        sel.update(pair, applicable=outcome[0], verdict=outcome[1])
    assert sel.theta.a.tolist() == a.tolist() and sel.theta.b.tolist() == b.tolist()
    assert sel.mu.a.tolist() == [1.0] * 4 and sel.mu.b.tolist() == [1.0] * 4


def test_cold_start_ignores_catalog_and_history() -> None:
    sel = build("cold-start", priors=[0.95, 0.05, 0.5, 0.5])
    assert isinstance(sel, AdaT2Selector)
    assert sel.theta.a.tolist() == [1.0] * 4 and sel.theta.b.tolist() == [1.0] * 4


def test_prior_weight_is_how_many_observations_the_catalog_rate_is_worth() -> None:
    from adat.config import parse_selector
    from adat.selection import make_selector
    from tests.test_selection.synthetic import embeddings, instructions, statements

    def prior(name: str, weight: float):  # type: ignore[no-untyped-def]
        return make_selector(parse_selector({"name": name, "prior_weight": weight}), statements(2),
                             instructions([0.9, 0.1]), embeddings(2), 2)

    flat, strong = prior("adat2", 0.0), prior("adat2", 20.0)
    assert list(flat.theta.a) == list(flat.theta.b) == [1.0, 1.0]  # weight 0: Beta(1, 1), the catalog ignored
    assert strong.theta.a[0] == pytest.approx(1.0 + 18.0) and strong.theta.b[1] == pytest.approx(1.0 + 18.0)
    # gp-bo's prior mean follows the same prior: the catalog's order, pulled to 1/2 at weight 0
    gp_flat, gp_strong = prior("gp-bo", 0.0), prior("gp-bo", 20.0)
    assert gp_flat.prior_mean[0] == pytest.approx(gp_flat.prior_mean[1])
    assert gp_strong.prior_mean[0] > gp_strong.prior_mean[1]
