"""The selector benchmark script runs and its ground truth separates the oracle from uniform choice."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.test_selection.scripts import load_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script("run.py", "selector_benchmark")


def test_benchmark_prints_its_table(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    names = "oracle,adat2,uniform,gp-bo,llm (simulated),pooled,pooled+history,pooled-cold-start,static"
    assert bench.main(["--seeds", "2", "--statements", "30", "--n", "5", "--workers", "1", "--selectors", names]) == 0
    out = capsys.readouterr().out
    assert "family classes, 2 seed(s)" in out and "family features, 2 seed(s)" in out
    assert "| selector" in out and "| pooled-cold-start" in out and "AdaT2 N_5 / uniform =" in out
    assert "pooled: cold start <= 0.65 x uniform" in out
    assert out.count("cold start without statement context: the best run policy") == out.count("family ") == 3


def test_the_cold_start_reference_is_the_context_free_bound_of_the_same_world(bench: ModuleType) -> None:
    import context_free_bound

    job = bench.Job(4, 130, 50, 40, 8, 0.7, 1.2, ("pooled-cold-start", "uniform"), family="mixed")
    res = bench.run_seed(job)
    assert res[bench.CONTEXT_FREE]["rows"] == context_free_bound.world_row(("mixed", 4, 50, 5))
    # without the cold start there is nothing to refer to
    assert bench.CONTEXT_FREE not in bench.run_seed(bench.Job(4, 40, 10, 12, 4, 0.7, 1.2, ("oracle", "uniform")))


def test_oracle_needs_fewer_attempts_than_uniform(bench: ModuleType) -> None:
    for seed in (0, 1):
        job = bench.Job(seed, 40, 10, 12, 4, 0.7, 1.2, ("oracle", "uniform"))
        res = bench.run_seed(job)
        assert res["oracle"]["na_share"] < res["uniform"]["na_share"]
        assert res["oracle"]["tests"] == 10


@pytest.mark.parametrize("family", ["classes", "features", "mixed"])
def test_a_written_world_file_gives_the_same_results_as_the_built_in_world(
        bench: ModuleType, tmp_path: Path, family: str, capsys: pytest.CaptureFixture[str]) -> None:
    names = ("oracle", "adat2", "adat2+history", "pooled", "uniform")
    job = bench.Job(3, 40, 8, 12, 4, 0.7, 1.2, names, family=family)
    built_in = bench.run_seed(job)
    assert bench.main(["--seeds", "4", "--statements", "40", "--n", "8", "--boundaries", "12", "--classes", "4",
                       "--workers", "1", "--family", family, "--selectors", "oracle", "--write-worlds",
                       str(tmp_path)]) == 0
    path = tmp_path / f"{family}-3.npz"
    from_file = bench.run_seed(bench.Job(3, 0, 8, 0, 0, 0.0, 0.0, names, world=str(path)))
    strip = {"ms_per_attempt", "seconds"}
    assert {n: {k: v for k, v in r.items() if k not in strip} for n, r in from_file.items()} == \
        {n: {k: v for k, v in r.items() if k not in strip} for n, r in built_in.items()}
    capsys.readouterr()
    assert bench.main(["--world", str(path), "--n", "8", "--workers", "1", "--selectors", "adat2,uniform"]) == 0
    assert f"world file {path} (family {family}, seed 3), 1 seed(s)" in capsys.readouterr().out


def test_a_bad_world_file_is_one_line_and_exit_2(bench: ModuleType, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.npz"
    import numpy as np
    np.savez(bad, format=np.array("something else"))
    assert bench.main(["--world", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "not a selector world file" in err and "\n" not in err


def test_features_family_makes_applicability_depend_on_statement_features(bench: ModuleType) -> None:
    import numpy as np
    import worlds  # type: ignore[import-not-found]

    from adat.instruction_catalog import load_instructions
    w = worlds.make_world("features", 0, load_instructions())
    night = w.nights["run"]
    # statements about the same boundary share features, so their applicability rows agree far
    # more than rows of statements about different boundaries
    same = night.boundary[:, None] == night.boundary[None, :]
    corr = np.corrcoef(night.p_applicable)
    off = ~np.eye(len(corr), dtype=bool)
    assert corr[same & off].mean() > corr[~same].mean() + 0.3


def test_mixed_family_shares_applicability_within_a_factor_with_exceptions(bench: ModuleType) -> None:
    import numpy as np
    import worlds  # type: ignore[import-not-found]

    from adat.instruction_catalog import load_instructions
    ins = load_instructions()
    p = worlds.make_world("mixed", 0, ins).nights["run"].p_applicable
    factor = np.array([i.factor for i in ins])
    cols = np.corrcoef(p.T)
    same = factor[:, None] == factor[None, :]
    off = ~np.eye(len(cols), dtype=bool)
    # instructions of one factor agree across statements far more than instructions of different factors
    assert np.nanmean(cols[same & off]) > np.nanmean(cols[~same]) + 0.3
    # ... yet not perfectly: the instruction-specific exceptions
    assert np.nanmean(cols[same & off]) < 0.95


def test_reasons_are_given_only_for_declined_pairs_and_round_trip(bench: ModuleType, tmp_path: Path) -> None:
    import numpy as np
    import worlds  # type: ignore[import-not-found]

    from adat.instruction_catalog import load_instructions
    w = worlds.make_world("features", 1, load_instructions(), statements=30)
    night = w.nights["run"]
    assert night.na_reason is not None
    assert (night.na_reason[night.applicable] == worlds.REASON_NONE).all()
    declined = night.na_reason[~night.applicable]
    assert set(np.unique(declined)) == {worlds.REASON_STATEMENT, worlds.REASON_INSTRUCTION}
    worlds.save_world(w, tmp_path / "w.npz")
    assert (worlds.load_world(tmp_path / "w.npz").nights["run"].na_reason == night.na_reason).all()
    # a file without reasons (an older or a hand-made one) still loads
    night.na_reason = None
    w.nights["history"].na_reason = None
    worlds.save_world(w, tmp_path / "plain.npz")
    assert worlds.load_world(tmp_path / "plain.npz").nights["run"].na_reason is None


def test_a_loose_tagger_calls_a_share_of_declines_statement_and_nothing_else(bench: ModuleType) -> None:
    import worlds  # type: ignore[import-not-found]

    from adat.instruction_catalog import load_instructions
    w = worlds.make_world("features", 2, load_instructions(), statements=30)
    assert worlds.loosen_reasons(w, 0.0) is w
    all_loose, half = worlds.loosen_reasons(w, 1.0), worlds.loosen_reasons(w, 0.5)
    for name, night in w.nights.items():
        declined = ~night.applicable
        assert (all_loose.nights[name].na_reason[declined] == worlds.REASON_STATEMENT).all()
        assert (all_loose.nights[name].na_reason[~declined] == worlds.REASON_NONE).all()
        assert (all_loose.nights[name].applicable == night.applicable).all()  # outcomes untouched
        changed = half.nights[name].na_reason != night.na_reason
        assert changed.any() and (half.nights[name].na_reason[changed] == worlds.REASON_STATEMENT).all()


def test_set_makes_every_selector_with_the_setting(bench: ModuleType, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from adat.selection import pooled

    monkeypatch.setattr(pooled, "REWORDING_GAMMA", 1.0)  # rewordings spread already: the setting alone here
    job = bench.Job(0, 40, 10, 12, 4, 0.7, 1.2, ("pooled",))
    plain = bench.run_seed(job)["pooled"]
    spread = bench.run_seed(bench.Job(0, 40, 10, 12, 4, 0.7, 1.2, ("pooled",), settings=(("gamma", 0.3),)))
    assert spread["pooled"]["top"] < plain["top"]  # AdaT2's reuse penalty spreads the tests over instructions
    assert bench.main(["--set", "gamma=oops", "--seeds", "1"]) == 2
    assert bench.main(["--set", "no_such_setting=1", "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert "'oops' is not a number" in err and "no_such_setting=1" in err


def test_moves_instruction_sends_an_instructions_moved_tests_to_one_boundary() -> None:
    import numpy as np
    import worlds  # type: ignore[import-not-found]

    from adat.instruction_catalog import load_instructions
    ins = load_instructions()
    fixed = worlds.make_world("classes", 4, ins, moves="instruction").nights["run"]
    drawn = worlds.make_world("classes", 4, ins).nights["run"]
    assert (fixed.applicable == drawn.applicable).all()  # only where moved tests land differs
    moved = fixed.covered != fixed.boundary[:, None]
    assert moved.any() and (moved == (drawn.covered != drawn.boundary[:, None])).mean() > 0.9
    for k in range(len(ins)):
        assert len(set(fixed.covered[moved[:, k], k])) <= 1  # one destination per instruction
    assert max(len(set(drawn.covered[moved[:, k], k])) for k in range(len(ins))) > 1
    with pytest.raises(ValueError, match="unknown moves model"):
        worlds.make_world("classes", 4, ins, moves="sideways")
    assert np.isin(fixed.covered, np.arange(40)).all()
