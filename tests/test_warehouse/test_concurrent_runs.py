"""Many writers, many readers on one warehouse (issue 30, item 4), at the unit level.

* A replace marks the parts it supersedes with tombstones instead of deleting them; every reader
  skips them (records, frames, the catalog's views) and they are deleted after their retention.
* The isolated writer/builder/reader race of the issue (tests/support/warehouse_race.py): catalog
  builds and `adat sql` queries while another process compacts, and an analyst's held read-only
  connection meanwhile: no error at all. Before, 3 of 58 builds failed in 60 s and the reader got
  `Cannot open file`.
* A process holding `adat.duckdb` read-write makes `adat sql`, `adat catalog` and `adat run`
  answer one line naming it, exit 2.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from adat.records import Trace
from adat.warehouse import build_catalog, read_records, sweep_superseded, write_records
from adat.warehouse.layout import live_parts, tombstone_path
from tests.support.warehouse_race import race

RACE_SECONDS = 20.0


def _trace(trace_id: str) -> Trace:
    return Trace(trace_id=trace_id, run_id="r1", kind="discovery")


def _ids(db: Path) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [row[0] for row in con.execute("select trace_id from traces order by trace_id").fetchall()]
    finally:
        con.close()


def test_a_superseded_part_stays_on_disk_unread_until_its_retention_ends(tmp_path: Path, sql_dir: Path) -> None:
    root = tmp_path / "data"
    # DuckDB opens the first file of a view's glob when it binds a query (for the schema), before it
    # prunes by file name: an earlier run's part comes first here, as in any warehouse with history.
    write_records(root, "traces", [Trace(trace_id="first", run_id="r0", kind="discovery")], run_id="r0")
    old = write_records(root, "traces", [_trace("old")], run_id="r1", owner="stage")
    assert old is not None
    early = build_catalog(root, sql_dir, db_path=tmp_path / "early.duckdb")  # built before the replace
    new = write_records(root, "traces", [_trace("new")], run_id="r1", owner="stage", replace=True)
    assert old.is_file() and tombstone_path(old).is_file() and live_parts(old.parent) == [new]
    assert [t.trace_id for t in read_records(root, "traces")] == ["first", "new"]  # type: ignore[attr-defined]
    assert _ids(early) == ["first", "new"]  # its view skips the part by the tombstone it globs at query time
    late = build_catalog(root, sql_dir)
    # A view built after the replace names the superseded part and never opens it: not even when
    # the file is no Parquet any more (opening it would fail).
    old.write_bytes(b"not parquet")
    assert _ids(late) == ["first", "new"]
    assert sweep_superseded(root, older_than_s=3600) == 0  # still within its retention
    assert sweep_superseded(root, older_than_s=0) == 1
    assert not old.exists() and not tombstone_path(old).exists() and new.is_file()
    assert _ids(early) == _ids(late) == ["first", "new"]


def test_builds_queries_and_a_held_reader_never_fail_while_another_process_compacts(
        tmp_path: Path, sql_dir: Path) -> None:
    results = race(tmp_path / "data", sql_dir, RACE_SECONDS)
    for role, (done, errors) in results.items():
        assert done > 0, f"{role} did nothing in {RACE_SECONDS} s"
        assert not errors, f"{role}: {errors}"


def _adat(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(sys.platform == "win32", reason="DuckDB's lock message names the PID on POSIX")
def test_a_read_write_holder_of_the_catalog_gets_one_line_naming_it_and_exit_2(
        fixture_root: Path, sql_dir: Path, tmp_path: Path) -> None:
    db = build_catalog(fixture_root, sql_dir)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time\n"
                               f"con = duckdb.connect({str(db)!r})\nprint('open', flush=True)\ntime.sleep(120)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        from tests.support.demo_config import small_demo_config, write_config

        config = write_config(small_demo_config(fixture_root, sessions=2, n=2, run_id="held"), tmp_path / "run.yaml")
        for args in (["sql", "stg_verdicts", "--data-dir", str(fixture_root)],
                     ["catalog", "--data-dir", str(fixture_root)],
                     ["run", "--config", str(config)]):
            started = time.monotonic()
            result = _adat(*args)
            lines = (result.stdout + result.stderr).strip().splitlines()
            assert result.returncode == 2, (args, result.stdout, result.stderr[-2000:])
            assert len(lines) == 1, (args, lines)
            assert f"PID {holder.pid}" in lines[0] and "read-write" in lines[0] and "-readonly" in lines[0], lines
            assert time.monotonic() - started < 120
        assert not (fixture_root / "runs" / "runs" / "run_id=held").exists()  # `adat run` stopped before it wrote
    finally:
        holder.kill()
        holder.wait()
    assert _adat("sql", "stg_verdicts", "--data-dir", str(fixture_root), "--format", "csv").returncode == 0
