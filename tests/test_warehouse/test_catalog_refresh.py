"""``refresh_catalog``: after a run, only what its parts change is redone, and the catalog answers
exactly as a full build would."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from adat.records import TABLES
from adat.warehouse import build_catalog, catalog_is_stale, catalog_path, refresh_catalog, write_records
from tests.fixtures.warehouse_records import rich_record


def _views(db: Path) -> dict[str, str]:
    """View name -> its SQL for the base views (DuckDB's text of a staging view orders an EXCLUDE
    list differently from build to build, so those compare by name only). The catalog's own path,
    which each base view's location guard names, reads as CATALOG."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("select view_name, sql from duckdb_views() where not internal").fetchall()
    return {name: _unrooted(sql, db) if name in TABLES else "" for name, sql in rows}


def _unrooted(sql: str, db: Path) -> str:
    for path in {str(db.resolve()), os.path.abspath(db)}:
        sql = sql.replace(path, "CATALOG")
    return sql


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def _as_built_anew(root: Path, sql_dir: Path, tmp_path: Path) -> dict[str, str]:
    """The views a full build gives for ``root`` (built elsewhere, so the catalog under test stays)."""
    return _views(build_catalog(root, sql_dir, db_path=tmp_path / "fresh.duckdb"))


def _write(root: Path, table: str, run_id: str, variants: range = range(2)) -> Path:
    model = TABLES[table]
    path = write_records(root, table, [rich_record(model, variant=v, run_id=run_id) for v in variants], run_id=run_id)
    assert path is not None
    return path


def test_a_new_run_of_known_tables_only_marks_the_catalog_current(tmp_path: Path, sql_dir: Path) -> None:
    root = tmp_path / "data"
    _write(root, "traces", "r1")
    _write(root, "verdicts", "r1")
    db = build_catalog(root, sql_dir)
    inode, built = db.stat().st_ino, db.stat().st_mtime_ns
    time.sleep(0.01)
    _write(root, "traces", "r2")
    _write(root, "verdicts", "r2", range(3))
    assert catalog_is_stale(root, sql_dir)
    assert refresh_catalog(root, sql_dir) == db
    assert db.stat().st_ino == inode and db.stat().st_mtime_ns > built  # not rewritten, only marked current
    assert not catalog_is_stale(root, sql_dir)
    assert _rows(db, "select run_id, count(*) from verdicts group by 1 order by 1") == [("r1", 2), ("r2", 3)]
    assert _views(db) == _as_built_anew(root, sql_dir, tmp_path)


def test_a_part_of_another_schema_gets_its_view_recreated(tmp_path: Path, sql_dir: Path) -> None:
    root = tmp_path / "data"
    _write(root, "traces", "r1")
    db = build_catalog(root, sql_dir)
    inode = db.stat().st_ino
    time.sleep(0.01)
    path = _write(root, "traces", "r2")
    pq.write_table(pq.read_table(path).drop_columns(["session_id"]), path)  # written before the field existed
    refresh_catalog(root, sql_dir)
    assert db.stat().st_ino != inode  # a new catalog replaced the old one
    assert _views(db) == _as_built_anew(root, sql_dir, tmp_path)
    nulls = _rows(db, "select run_id, count(*) filter (where session_id is null) from traces group by 1 order by 1")
    assert nulls == [("r1", 0), ("r2", 2)]


def test_removed_parts_build_the_catalog_anew(tmp_path: Path, sql_dir: Path) -> None:
    root = tmp_path / "data"
    _write(root, "traces", "r1")
    _write(root, "verdicts", "r1")
    db = build_catalog(root, sql_dir)
    time.sleep(0.01)
    shutil.rmtree(root / "runs" / "verdicts" / "run_id=r1")  # the table keeps its directory, no part
    refresh_catalog(root, sql_dir)
    assert _rows(db, "select count(*) from verdicts") == [(0,)]  # a typed empty view, not a glob that fails
    assert _views(db) == _as_built_anew(root, sql_dir, tmp_path)


def test_a_catalog_of_another_adat_is_built_anew(tmp_path: Path, sql_dir: Path) -> None:
    root = tmp_path / "data"
    _write(root, "traces", "r1")
    db = build_catalog(root, sql_dir)
    with duckdb.connect(str(db)) as con:
        con.execute("comment on view runs is 'adat-catalog of another version'")
    time.sleep(0.01)
    _write(root, "traces", "r2")
    refresh_catalog(root, sql_dir)
    assert _views(db) == _as_built_anew(root, sql_dir, tmp_path)
    fresh = tmp_path / "fresh.duckdb"
    comment = _rows(db, "select comment from duckdb_views() where view_name = 'runs'")
    assert _unrooted(str(comment), db) == _unrooted(
        str(_rows(fresh, "select comment from duckdb_views() where view_name = 'runs'")), fresh)


def test_refresh_builds_a_missing_catalog_and_leaves_a_current_one(tmp_path: Path, sql_dir: Path) -> None:
    root = tmp_path / "data"
    _write(root, "traces", "r1")
    db = refresh_catalog(root, sql_dir)
    assert db == catalog_path(root) and _rows(db, "select count(*) from traces") == [(2,)]
    built = db.stat().st_mtime_ns
    assert refresh_catalog(root, sql_dir) == db and db.stat().st_mtime_ns == built
