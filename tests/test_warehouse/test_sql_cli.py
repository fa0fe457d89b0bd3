"""`adat sql` end to end: a staging query over fixture Parquet, through the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

typer_testing = pytest.importorskip("typer.testing")


def _app():  # type: ignore[no-untyped-def]
    from adat.cli.main import app

    return app


def test_adat_sql_runs_a_staging_query_over_fixture_parquet(fixture_root: Path, tmp_path: Path) -> None:
    query = tmp_path / "latest_verdicts.sql"
    query.write_text("-- params: run_id\nselect run_id, execution_id, verdict from stg_verdicts\n"
                     "where ($run_id is null or run_id = $run_id) order by run_id, execution_id\n")
    runner = typer_testing.CliRunner()
    result = runner.invoke(_app(), ["sql", str(query), "--run", "r1", "--format", "csv",
                                    "--data-dir", str(fixture_root)])
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["run_id,execution_id,verdict", "r1,e1,pass", "r1,e2,inconclusive"]
    out = tmp_path / "verdicts.parquet"
    result = runner.invoke(_app(), ["sql", "stg_verdicts", "--format", "parquet", "--out", str(out),
                                    "--data-dir", str(fixture_root)])
    assert result.exit_code == 0, result.output
    import pyarrow.parquet as pq

    assert pq.read_table(out).num_rows == 3


def test_adat_sql_unknown_name_exits_2_with_one_line(fixture_root: Path) -> None:
    adat = Path(sys.executable).parent / "adat"
    if not adat.is_file():
        pytest.skip(f"the adat console script is not installed next to {sys.executable}")
    result = subprocess.run([str(adat), "sql", "stg_verdict", "--data-dir", str(fixture_root)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    message = (result.stdout + result.stderr).strip()
    assert "stg_verdicts" in message and len(message.splitlines()) == 1


def test_param_option_binds_and_missing_declared_params_are_null(tmp_path):
    """`adat sql attempts_until_n` works without --param n (NULL = the run's n) and with it."""
    import subprocess
    import sys

    from adat.records import Attempt
    from adat.warehouse import write_records

    root = tmp_path / "data"
    attempts = [Attempt(run_id="r1", attempt_no=i, statement_id="s", instruction_id=f"k{i}",
                        applicable=i % 2 == 0, test_id=f"t{i}" if i % 2 == 0 else None, selector="adat2")
                for i in range(1, 9)]
    write_records(root, "attempts", attempts, run_id="r1")
    base = [sys.executable, "-c", "from adat.cli.main import app; app()", "sql", "attempts_until_n",
            "--data-dir", str(root), "--format", "csv"]
    default = subprocess.run(base, capture_output=True, text=True)
    assert default.returncode == 0, default.stderr
    with_n = subprocess.run(base + ["--param", "n=2"], capture_output=True, text=True)
    assert with_n.returncode == 0, with_n.stderr
    header, row = with_n.stdout.strip().splitlines()[:2]
    assert dict(zip(header.split(","), row.split(","), strict=True))["attempts_until_n"] == "4"
    bad = subprocess.run(base + ["--param", "n"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--param" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_run_option_filters_views_without_a_run_parameter(tmp_path):
    """`adat sql stg_attempts --run r2` filters on the view's run_id column."""
    from adat.config import adat_home
    from adat.records import Attempt
    from adat.warehouse import sql_command, write_records

    root = tmp_path / "data"
    for run in ("r1", "r2"):
        write_records(root, "attempts", [Attempt(run_id=run, attempt_no=1, statement_id="s", instruction_id="k",
                                                 applicable=False, selector="adat2")], run_id=run)
    text = sql_command(root, adat_home() / "sql", "stg_attempts", "r2", "csv", None)
    assert text is not None
    rows = text.strip().splitlines()[1:]
    assert len(rows) == 1 and ",r2," in f",{rows[0]},"
