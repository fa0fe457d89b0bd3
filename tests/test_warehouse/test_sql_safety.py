"""`adat sql` reads only queries from sql/ or .sql files the user names, and a query writes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from adat.errors import UserError
from adat.warehouse import build_catalog, resolve_query, run_query

ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]


@pytest.mark.parametrize("name", ["../../../../etc/passwd", "/etc/passwd", "metrics/../../pyproject.toml",
                                  "staging/../staging/stg_tests", "..", "nosuchfolder/stg_tests"])
def test_a_name_never_leaves_sql(sql_dir: Path, name: str) -> None:
    with pytest.raises(UserError, match="no query named"):
        resolve_query(name, sql_dir)


def test_cli_refuses_a_path_that_is_not_a_sql_file(fixture_root: Path) -> None:
    proc = subprocess.run([*ADAT, "sql", "../../../../etc/passwd", "--data-dir", str(fixture_root)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "no query named" in proc.stderr
    assert "root:" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("statement", [
    "copy (select * from stg_tests) to '{out}'",
    "copy stg_tests to '{runs}/stolen.csv'",  # even inside the one directory views may read
    "export database '{out}'",
    "attach '{out}' as other",
    "select 1; copy (select 1) to '{out}'",
    "set enable_external_access = true",
    "install httpfs",
])
def test_user_queries_cannot_write_files(fixture_root: Path, sql_dir: Path, tmp_path: Path, statement: str) -> None:
    db = build_catalog(fixture_root, sql_dir)
    out = tmp_path / "out.csv"
    query = tmp_path / "mine.sql"
    query.write_text(statement.format(out=out, runs=fixture_root / "runs") + "\n")
    before = sorted(p for p in fixture_root.rglob("*"))
    with pytest.raises(UserError, match="exactly one SELECT"):
        run_query(db, query, {})
    assert not out.exists()
    assert sorted(p for p in fixture_root.rglob("*")) == before


@pytest.mark.parametrize("reader", ["read_csv('{file}')", "read_text('{file}')", "read_parquet('{other}')"])
def test_a_select_cannot_read_files_outside_the_warehouse(fixture_root: Path, sql_dir: Path, tmp_path: Path,
                                                          reader: str) -> None:
    db = build_catalog(fixture_root, sql_dir)
    secret = tmp_path / "secret.txt"
    secret.write_text("a,b\n1,2\n")
    query = tmp_path / "mine.sql"
    query.write_text(f"select * from {reader.format(file=secret, other=tmp_path / 'x.parquet')}\n")
    with pytest.raises(UserError, match="mine.sql.*(disabled|Permission)"):
        run_query(db, query, {})


def test_a_named_sql_file_runs_against_the_catalog(fixture_root: Path, sql_dir: Path, tmp_path: Path) -> None:
    db = build_catalog(fixture_root, sql_dir)
    query = tmp_path / "mine.sql"
    query.write_text("-- mine\nwith t as (select * from stg_tests) select count(*) as n from t\n")
    assert resolve_query(str(query), sql_dir) == query
    assert run_query(db, query, {}).to_pylist() == [{"n": 3}]


def test_cli_copy_to_is_one_line_and_writes_nothing(fixture_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "leak.csv"
    query = tmp_path / "leak.sql"
    query.write_text(f"copy (select * from stg_tests) to '{out}'\n")
    proc = subprocess.run([*ADAT, "sql", str(query), "--data-dir", str(fixture_root)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "exactly one SELECT, not COPY" in proc.stderr
    assert not out.exists()
