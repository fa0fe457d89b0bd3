"""CLI polish: --version, every config error listed, no wrapping in a pipe, `adat sql` table output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adat import __version__
from adat.cli.main import app
from adat.config import load_run_config
from adat.errors import UserError
from tests.test_sql.conftest import SQL_DIR
from tests.test_sql.warehouse_fixture import write_metrics_fixture

BAD_CONFIG = "seed: x\nfoo: 1\ngeneration: {n: -3, bogus: true}\n"


def _adat() -> Path:
    adat = Path(sys.executable).parent / "adat"
    if not adat.is_file():
        pytest.skip(f"the adat console script is not installed next to {sys.executable}")
    return adat


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"adat {__version__}"


def test_every_config_error_is_listed(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(BAD_CONFIG)
    with pytest.raises(UserError) as caught:
        load_run_config(config)
    fields = [line.split(": ")[1] for line in caught.value.lines()]
    assert sorted(fields) == ["foo", "generation.bogus", "generation.n", "seed"]
    assert "more" not in str(caught.value)
    result = subprocess.run([str(_adat()), "config", "check", str(config)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 4 and all(line.startswith(f"error: {config}: ") for line in lines)


def test_output_is_not_wrapped_when_not_a_terminal(tmp_path: Path) -> None:
    deep = tmp_path / ("a-directory-name-long-enough-to-pass-eighty-columns-" * 3) / "data"
    write_metrics_fixture(deep)
    result = subprocess.run([str(_adat()), "catalog", "--data-dir", str(deep)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.strip().splitlines()
    assert f"duckdb -readonly {deep / 'adat.duckdb'}" in line


def test_sql_table_rounds_floats_and_hides_json_columns_unless_wide(tmp_path: Path) -> None:
    from adat.warehouse import sql_command

    root = write_metrics_fixture(tmp_path / "data")
    query = tmp_path / "ratio.sql"
    query.write_text("select 2 / 3 as ratio, 1.0 as whole, 0.00001234 as tiny, '{\"a\": 1}' as extra_json\n")
    text = sql_command(root, SQL_DIR, str(query), None, "table", None) or ""
    assert "0.6667" in text and "0.6666" not in text and "1.23e-05" in text
    assert "extra_json" not in text.splitlines()[1] and "hidden wide columns: extra_json" in text
    wide = sql_command(root, SQL_DIR, str(query), None, "table", None, wide=True) or ""
    assert "extra_json" in wide and "hidden" not in wide
    csv = sql_command(root, SQL_DIR, str(query), None, "csv", None) or ""
    assert csv.splitlines()[0] == "ratio,whole,tiny,extra_json" and "0.6666666" in csv  # CSV keeps full values
    runs = sql_command(root, SQL_DIR, "stg_runs", None, "table", None) or ""
    assert "config_json" in runs.splitlines()[-1] and '"generation"' not in runs
