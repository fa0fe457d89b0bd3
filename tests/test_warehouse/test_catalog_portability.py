"""The catalog outside adat: the released DuckDB command line opens it (README: ``duckdb -readonly
data/adat.duckdb``), and a data dir moved or copied with ``mv`` / ``cp -a`` reads its own runs.

The command-line tests use the ``duckdb`` executable of the ``duckdb-cli`` package (the ``dev``
extra installs it; nothing is installed here) and skip when it is absent.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from adat.records import Execution
from adat.warehouse import build_catalog, write_records
from adat.warehouse.catalog import STORAGE_VERSION
from adat.warehouse.sql_runner import sql_command
from tests.fixtures.warehouse_records import write_fixture_warehouse

#: the storage version numbers the released command line (duckdb-cli 1.5.x) reads; duckdb 2.0 writes 69
CLI_READABLE_STORAGE = range(64, 69)
COUNT_SQL = "select run_id, count(*) as n from stg_executions group by all order by run_id"


def _duckdb_cli() -> str | None:
    """The DuckDB command line of this environment (the venv's first: that is where pip puts it)."""
    beside = Path(sys.executable).parent / "duckdb"
    return str(beside) if beside.is_file() else shutil.which("duckdb")


needs_cli = pytest.mark.skipif(
    _duckdb_cli() is None,
    reason="the DuckDB command line is not installed (pip install duckdb-cli; the dev extra has it)")


def _cli(db: str, sql: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``duckdb -readonly DB`` exactly as the README has it, with ``sql`` typed on its input."""
    cli = _duckdb_cli()
    assert cli is not None
    return subprocess.run([cli, "-readonly", db], input=f".mode csv\n{sql};\n", cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=False)


def _storage_number(db: Path) -> int:
    """The storage version number in a DuckDB file's main header (after an 8-byte checksum and b'DUCK')."""
    header = db.read_bytes()[:20]
    assert header[8:12] == b"DUCK", header
    return int.from_bytes(header[12:20], "little")


def _adat_counts(root: Path, tmp_path: Path) -> dict[str, int]:
    """Executions per run through adat's own query path (``adat sql FILE --data-dir ROOT --format csv``)."""
    query = tmp_path / "count_executions.sql"
    query.write_text(COUNT_SQL + "\n", encoding="utf-8")
    text = sql_command(root, Path(__file__).resolve().parents[2] / "sql", str(query), None, "csv", None)
    assert text is not None
    return {row["run_id"]: int(row["n"]) for row in csv.DictReader(io.StringIO(text))}


def _cli_counts(db: Path, cwd: Path) -> dict[str, int]:
    done = _cli(str(db), COUNT_SQL, cwd)
    assert done.returncode == 0, done.stderr
    return {row["run_id"]: int(row["n"]) for row in csv.DictReader(io.StringIO(done.stdout))}


def test_the_catalog_is_written_in_a_storage_version_the_released_cli_reads(tmp_path: Path, sql_dir: Path) -> None:
    root = tmp_path / "data"
    write_fixture_warehouse(root)
    db = build_catalog(root, sql_dir)
    assert _storage_number(db) in CLI_READABLE_STORAGE, f"storage {STORAGE_VERSION}"
    with duckdb.connect(str(db), read_only=True) as con:  # and it still answers as it did
        assert con.execute(COUNT_SQL).fetchall() == [("r1", 2), ("r2", 1)]


@needs_cli
def test_the_readme_analyst_command_opens_the_catalog(tmp_path: Path, sql_dir: Path) -> None:
    write_fixture_warehouse(tmp_path / "data")
    build_catalog(tmp_path / "data", sql_dir)
    done = _cli("data/adat.duckdb", "select (select count(*) from stg_runs) as runs, "
                "(select count(*) from stg_executions) as executions", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["runs,executions", "0,3"]


def test_a_moved_and_a_copied_data_dir_each_read_their_own_runs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    data = project / "data"
    write_fixture_warehouse(data)
    assert _adat_counts(data, tmp_path) == {"r1": 2, "r2": 1}  # builds the catalog at data/

    copy = project / "copy"
    subprocess.run(["cp", "-a", str(data), str(copy)], check=True)  # mtimes kept: only the path differs
    write_records(copy, "executions", [Execution(run_id="r3", execution_id="e1", test_id="t1",
                                                 agent_id="reference")], run_id="r3")
    # Before adat has seen the copy, a reader of its catalog fails with one line, never reading data/'s runs.
    with duckdb.connect(str(copy / "adat.duckdb"), read_only=True) as con, \
            pytest.raises(duckdb.Error, match="moved or copied: run `adat catalog --data-dir DIR`"):
        con.execute("select count(*) from executions where run_id = 'r1'").fetchall()
    moved = project / "moved"
    os.rename(data, moved)  # mv data moved

    assert _adat_counts(moved, tmp_path) == {"r1": 2, "r2": 1}
    assert _adat_counts(copy, tmp_path) == {"r1": 2, "r2": 1, "r3": 1}
    os.utime(copy / "runs" / "executions" / "run_id=r1")  # and a later refresh keeps the copy's own paths
    assert _adat_counts(copy, tmp_path) == {"r1": 2, "r2": 1, "r3": 1}
    if _duckdb_cli() is not None:  # the analyst's view, from a working directory of neither
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        assert _cli_counts(moved / "adat.duckdb", elsewhere) == {"r1": 2, "r2": 1}
        assert _cli_counts(copy / "adat.duckdb", elsewhere) == {"r1": 2, "r2": 1, "r3": 1}


@needs_cli
def test_the_cli_on_a_copy_adat_has_not_rebuilt_fails_instead_of_reading_the_original(tmp_path: Path,
                                                                                        sql_dir: Path) -> None:
    write_fixture_warehouse(tmp_path / "data")
    build_catalog(tmp_path / "data", sql_dir)
    subprocess.run(["cp", "-a", str(tmp_path / "data"), str(tmp_path / "copy")], check=True)
    done = _cli(str(tmp_path / "copy" / "adat.duckdb"), COUNT_SQL, tmp_path)
    assert done.returncode != 0 and "r1" not in done.stdout
    assert "moved or copied: run `adat catalog --data-dir DIR`" in done.stderr
    assert _cli_counts(tmp_path / "data" / "adat.duckdb", tmp_path) == {"r1": 2, "r2": 1}  # the original reads on
