"""Blocks, passes, set-aside, the three stopping rules, seeding and the loop contract."""

from __future__ import annotations

from collections import Counter

import pytest

from adat.selection import STOP_BUDGET, STOP_EMPTY, STOP_PASSES, STOP_TARGET
from tests.test_selection.synthetic import always_pass, build, drive, hashed_outcome, never_applicable


def test_statement_is_set_aside_after_a_transformed_test() -> None:
    sel = build(n_statements=3, block_size=3, n_target=100, max_passes=1)
    pairs = drive(sel, always_pass)
    assert [p.pass_no for p in pairs] == [1, 1, 1]
    assert sorted(p.statement_id for p in pairs) == ["s0", "s1", "s2"]  # one test each, then set aside
    assert sel.stop_reason() == STOP_PASSES


def test_set_aside_lasts_one_pass() -> None:
    sel = build(n_statements=3, block_size=3, n_target=100, max_passes=2)
    pairs = drive(sel, always_pass)
    by_pass = Counter((p.pass_no, p.statement_id) for p in pairs)
    assert by_pass == {(n, s): 1 for n in (1, 2) for s in ("s0", "s1", "s2")}


def test_statement_is_set_aside_after_m_not_applicable_attempts_in_a_pass() -> None:
    sel = build(n_statements=2, block_size=2, priors=[0.5] * 10, n_target=50, max_not_applicable=3, max_passes=2)
    pairs = drive(sel, never_applicable)
    assert Counter((p.pass_no, p.statement_id) for p in pairs) == {(n, s): 3 for n in (1, 2) for s in ("s0", "s1")}
    assert sel.stop_reason() == STOP_PASSES


def test_walk_moves_to_the_next_block_when_the_current_one_is_done() -> None:
    sel = build(n_statements=5, block_size=2, n_target=100, max_passes=1)
    pairs = drive(sel, always_pass)
    assert [p.block for p in pairs] == [0, 0, 1, 1, 2]
    assert {p.statement_id for p in pairs[:2]} == {"s0", "s1"} and {p.statement_id for p in pairs[2:4]} == {"s2", "s3"}


def test_statement_without_untried_pairs_is_skipped() -> None:
    sel = build(n_statements=2, block_size=2, priors=[0.5], n_target=10, max_passes=3)
    pairs = drive(sel, never_applicable)
    assert len(pairs) == 2 and sel.stop_reason() == STOP_PASSES


def test_stops_when_n_transformed_tests_exist() -> None:
    sel = build(n_statements=20, n_target=4)
    assert len(drive(sel, always_pass)) == 4 and sel.stop_reason() == STOP_TARGET


def test_stops_after_factor_times_n_attempts() -> None:
    sel = build(n_statements=20, n_target=5, attempts_per_test=2)
    assert len(drive(sel, never_applicable)) == 10 and sel.stop_reason() == STOP_BUDGET


def test_attempt_budget_is_capped() -> None:
    sel = build(n_statements=20, n_target=5, attempts_per_test=6, max_attempts_cap=7)
    assert len(drive(sel, never_applicable)) == 7 and sel.stop_reason() == STOP_BUDGET


def test_stops_after_max_passes() -> None:
    sel = build(n_statements=4, block_size=2, n_target=100, max_passes=2)
    pairs = drive(sel, always_pass)
    assert len(pairs) == 8 and max(p.pass_no for p in pairs) == 2 and sel.stop_reason() == STOP_PASSES


def test_nothing_to_pair_stops_at_once() -> None:
    sel = build(n_statements=0)
    assert sel.next_pair() is None and sel.stop_reason() == STOP_EMPTY


@pytest.mark.parametrize("name", ["adat2", "cold-start", "thompson", "uniform", "exp3"])
def test_same_seed_same_choices_other_seed_other_choices(name: str) -> None:
    def run(seed: int) -> list[tuple[str, str]]:
        pairs = drive(build(name, n_statements=12, priors=[0.5] * 8, n_target=8, seed=seed), hashed_outcome)
        return [(p.statement_id, p.instruction_id) for p in pairs]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_loop_contract_is_enforced() -> None:
    sel = build()
    pair = sel.next_pair()
    assert pair is not None
    with pytest.raises(RuntimeError):
        sel.next_pair()
    with pytest.raises(ValueError):
        sel.update(pair, applicable=False, verdict="pass")
    sel.update(pair, applicable=False, verdict=None)
    with pytest.raises(RuntimeError):
        sel.update(pair, applicable=False, verdict=None)  # already reported


def test_attempt_numbers_count_from_one() -> None:
    pairs = drive(build(n_target=3), hashed_outcome)
    assert [p.attempt_no for p in pairs] == list(range(1, len(pairs) + 1))
