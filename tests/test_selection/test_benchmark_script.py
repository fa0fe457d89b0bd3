"""The selector benchmark script runs and its ground truth separates the oracle from uniform choice."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "selectors" / "run.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("selector_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_benchmark_prints_its_table(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    names = "oracle,adat2,uniform,gp-bo,llm (simulated)"
    assert bench.main(["--seeds", "2", "--statements", "30", "--n", "5", "--workers", "1", "--selectors", names]) == 0
    out = capsys.readouterr().out
    assert "| selector" in out and "| gp-bo" in out and "AdaT2 N_5 / uniform N_5 =" in out


def test_oracle_needs_fewer_attempts_than_uniform(bench: ModuleType) -> None:
    for seed in (0, 1):
        job = bench.Job(seed, 40, 10, 12, 4, 0.7, 1.2, ("oracle", "uniform"))
        res = bench.run_seed(job)
        assert res["oracle"]["na_share"] < res["uniform"]["na_share"]
        assert res["oracle"]["tests"] == 10
