"""The context-free reference of the cold-start bound (benchmarks/selectors/context_free_bound.py)."""

from __future__ import annotations

import re
from types import ModuleType

import numpy as np
import pytest

from tests.test_selection.scripts import load_script


@pytest.fixture(scope="module")
def bound() -> ModuleType:
    return load_script("context_free_bound.py", "context_free_bound")


def test_rates_are_the_worlds_drawn_applicability(bound: ModuleType) -> None:
    import worlds

    from adat.instruction_catalog import load_instructions

    r = bound.rates("features", 3)
    drawn = worlds.make_world("features", 3, load_instructions()).nights["run"].applicable
    assert r.shape == (drawn.shape[1],) and np.allclose(r, drawn.mean(axis=0))


def test_the_run_policy_keeps_what_works_and_leaves_what_does_not(bound: ModuleType) -> None:
    rng = np.random.default_rng(0)
    r = np.zeros(20)
    r[7] = 1.0
    # Every other instruction always fails: once found, instruction 7 is kept to the end.
    t = bound.attempts(r, 0.6, 10, rng)
    assert 10 <= t < 10 + 20
    # A sure instruction from the start needs exactly n attempts; nothing applicable uses the budget.
    assert bound.attempts(np.ones(5), 0.6, 10, rng) == 10
    assert bound.attempts(np.zeros(5), 0.6, 10, rng) == bound.BUDGET
    assert bound.attempts(np.zeros(5), None, 10, rng) == bound.BUDGET


def test_it_prints_each_row_against_uniform(bound: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert bound.main(["--seeds", "2", "--family", "classes", "--repeats", "2", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("classes: "))
    assert "uniform " in line and "(1.000)" in line.split("|")[0]
    ratios = [float(x) for x in re.findall(r"\((\d\.\d{3})\)", line)]
    assert len(ratios) == 2 + len(bound.TAUS)
    assert min(ratios[1:-1]) < 0.9  # the run policy beats uniform clearly
    assert ratios[-1] <= min(ratios[1:-1])  # knowing the rates is a floor
    assert "best run policy: run " in out


@pytest.mark.parametrize(("argv", "says"), [(["--family", "nope"], "unknown family nope"),
                                            (["--seeds", "0"], "--seeds, --repeats and --n must be at least 1")])
def test_bad_input_is_one_line_and_exit_2(bound: ModuleType, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], says: str) -> None:
    assert bound.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and says in err
