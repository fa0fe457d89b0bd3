"""`adat baselines` / `adat ablation` reject bad input before any flow runs."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from adat.cli.main import app
from adat.errors import UserError


def test_ablation_rejects_unknown_selectors(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("seed: 1\n")
    result = CliRunner().invoke(app, ["ablation", "--config", str(config), "--from", "r1", "--selectors", "adat2,nope"])
    assert isinstance(result.exception, UserError) and "nope" in str(result.exception)
    assert "--selectors" in str(result.exception)


def test_baselines_needs_a_valid_config(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("selector:\n  name: bogus\n")
    result = CliRunner().invoke(app, ["baselines", "--config", str(config), "--from", "r1"])
    assert isinstance(result.exception, UserError) and "selector.name" in str(result.exception)
