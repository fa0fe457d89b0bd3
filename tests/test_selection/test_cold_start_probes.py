"""The cold-start probe script (the rejected variants quoted in docs/selection.md) still runs."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

import pytest

from tests.test_selection.scripts import load_script


@pytest.fixture(scope="module")
def probes() -> ModuleType:
    return load_script("cold_start_probes.py", "cold_start_probes")


def test_every_probe_runs_and_prints_its_paired_difference(probes: ModuleType,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    variants = ("base,eb,ml,preq,bma,kg,gittins,glmm,tprior,base:pooled_cold_obs_weight=0.15,"
                "base:max_not_applicable=1,recept:hostile=0.2:order=0.3:explore=1,recept:moveon=0.9,"
                "fts:scale=0.5:kappa=0.5,sdisc:share=0.5,asym:ws=0.5:wf=0.25,tinst,tinst:catalog=1,fresh:tau=0.7")
    assert probes.main([variants, "--seeds", "0", "--family", "classes", "--workers", "1", "--calibration"]) == 0
    out = capsys.readouterr().out
    assert "classes: base " in out and "| gittins " in out and "| glmm " in out
    assert "| fts:scale=0.5:kappa=0.5 " in out and "| sdisc:share=0.5 " in out and "| fresh:tau=0.7 " in out
    assert "base calibration (predicted / true): untried" in out


def test_base_probe_is_the_real_cold_start_selector(probes: ModuleType) -> None:
    """The paired reference is pooled-cold-start itself: the same N_50 as run.py's row on that world."""
    run = sys.modules.get("run") or importlib.import_module("run")
    _, _, out = probes.run_world(("features", 1, ("base",), False))
    job = run.Job(1, 130, 50, 40, 8, 0.7, 1.2, ("pooled-cold-start",), family="features")
    assert out["base"][0] == run.run_seed(job)["pooled-cold-start"]["n_target"]
