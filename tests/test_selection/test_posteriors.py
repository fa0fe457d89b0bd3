"""Quantile schedule, rewards, priors from the catalog and from history."""

from __future__ import annotations

import math

import numpy as np
import pytest

from adat.records import Attempt
from adat.selection import combined_prior_rate, instruction_history_priors, quantile_level, reward_of
from adat.selection.posteriors import BetaPosteriors, theta_prior
from tests.test_selection.synthetic import instructions


def test_quantile_schedule_with_c_zero_is_one_minus_one_over_t() -> None:
    assert quantile_level(1, 300) == 0.0
    assert quantile_level(2, 300) == pytest.approx(0.5)
    assert quantile_level(10, 300) == pytest.approx(0.9)
    assert quantile_level(400, 300) == pytest.approx(1 - 1 / 400)


def test_quantile_schedule_with_horizon_exponent() -> None:
    horizon = 100
    assert quantile_level(5, horizon, c=1.0) == pytest.approx(1 - 1 / (5 * math.log(horizon)))
    assert quantile_level(5, horizon, c=2.0) == pytest.approx(1 - 1 / (5 * math.log(horizon) ** 2))
    assert quantile_level(3, 1, c=1.0) == 0.0  # (log 1)^c = 0: no finite level, take 0
    with pytest.raises(ValueError):
        quantile_level(0, 10)


def test_rewards() -> None:
    assert [reward_of(v) for v in ("pass", "inconclusive", "fail", None)] == [1.0, 0.5, 0.0, None]
    with pytest.raises(ValueError):
        reward_of("maybe")


def test_beta_quantiles_are_upper_quantiles() -> None:
    post = BetaPosteriors(np.array([1.0, 9.0]), np.array([1.0, 1.0]))
    q = post.quantile(0.9)
    assert q[0] == pytest.approx(0.9)           # Beta(1,1) is uniform
    assert q[1] > q[0] and post.mean()[1] == pytest.approx(0.9)


def test_theta_prior_uses_catalog_then_history_with_weight() -> None:
    ins = instructions([0.8, 0.25])
    catalog = theta_prior(ins, weight=2.0)
    assert catalog.a.tolist() == pytest.approx([2.6, 1.5]) and catalog.b.tolist() == pytest.approx([1.4, 2.5])
    hist = theta_prior(ins, weight=2.0, history={"k1": (3.0, 1.0), "k0": (0.0, 0.0)})
    p1 = (2.0 * 0.25 + 3.0) / (2.0 + 4.0)  # the catalog rate as w = 2 pseudo-observations + history
    assert hist.a.tolist() == pytest.approx([2.6, 1 + 2 * p1]) and hist.b.tolist() == pytest.approx([1.4, 3 - 2 * p1])
    cold = theta_prior(ins, weight=2.0, history={"k1": (3.0, 1.0)}, cold_start=True)
    assert cold.a.tolist() == [1.0, 1.0] and cold.b.tolist() == [1.0, 1.0]


@pytest.mark.parametrize(("catalog", "observed_applicable"), [(0.8, False), (0.25, True), (0.5, True)])
def test_one_observation_moves_the_prior_strictly_between_catalog_and_observation(
        catalog: float, observed_applicable: bool) -> None:
    ins = instructions([catalog])
    history = {"k0": (1.0, 0.0) if observed_applicable else (0.0, 1.0)}
    observation = 1.0 if observed_applicable else 0.0
    rate = combined_prior_rate(catalog, *history["k0"], weight=2.0)
    assert min(catalog, observation) < rate < max(catalog, observation)
    assert rate == pytest.approx((2 * catalog + observation) / 3)
    # and so the θ prior's mean lies strictly between the catalog-only prior's and the observation
    without, with_one = theta_prior(ins, weight=2.0).mean()[0], theta_prior(ins, weight=2.0, history=history).mean()[0]
    assert min(without, observation) < with_one < max(without, observation)
    # a long history dominates the catalog
    assert combined_prior_rate(catalog, 90.0 * observation, 90.0 * (1 - observation), weight=2.0) \
        == pytest.approx(observation, abs=0.02)


def test_history_priors_count_attempts_and_tuples_and_skip_errors() -> None:
    def row(kid: str, outcome: str) -> Attempt:
        return Attempt(run_id="r", attempt_no=1, statement_id="s", instruction_id=kid, outcome=outcome,  # type: ignore[arg-type]
                       selector="adat2")
    rows: list[Attempt | tuple[str, bool]] = [
        row("k0", "applicable"), row("k0", "error"), row("k0", "not_applicable"), row("k1", "not_applicable"),
        Attempt(run_id="r", attempt_no=2, statement_id="s", instruction_id="k1", applicable=True, selector="adat2"),
        ("k2", True), ("k2", False), ("k2", True)]
    assert instruction_history_priors(rows) == {"k0": (1.0, 1.0), "k1": (1.0, 1.0), "k2": (2.0, 1.0)}  # errors never count
