from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from adat.errors import UserError
from adat.records import TABLES, Trace
from adat.warehouse import build_catalog, catalog_is_stale, read_records, write_records
from tests.fixtures.warehouse_records import rich_record

ORDER_COLUMNS = ["_part", "_row"]


def _columns(con: duckdb.DuckDBPyConnection, view: str) -> dict[str, str]:
    return {row[0]: row[1] for row in con.execute(f"describe {view}").fetchall()}


def _count(con: duckdb.DuckDBPyConnection, view: str) -> int:
    row = con.execute(f"select count(*) from {view}").fetchone()
    assert row is not None
    return int(row[0])


def test_empty_warehouse_has_typed_zero_row_views(tmp_path: Path, sql_dir: Path) -> None:
    db = build_catalog(tmp_path, sql_dir)
    assert db == tmp_path / "adat.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        for table, model in TABLES.items():
            assert _count(con, table) == 0
            assert list(_columns(con, table)) == list(model.model_fields) + ORDER_COLUMNS
            assert _count(con, f"stg_{table}") == 0
        assert _columns(con, "traces")["turns"] == ('STRUCT("role" VARCHAR, "text" VARCHAR, ts DOUBLE, tool_calls STRUCT("name" VARCHAR, '
                                                  'arguments_json VARCHAR, result_json VARCHAR, "error" VARCHAR, '
                                                  '"order" BIGINT)[])[]')
        assert _columns(con, "llm_calls")["ts"] == "TIMESTAMP WITH TIME ZONE"


def test_views_over_every_table_and_staging_columns_cover_every_field(tmp_path: Path, sql_dir: Path) -> None:
    for table, model in TABLES.items():
        records = [rich_record(model, variant=v, run_id="20240101") for v in (0, 1, 2)]
        write_records(tmp_path, table, records, run_id="20240101")
    db = build_catalog(tmp_path, sql_dir)
    with duckdb.connect(str(db), read_only=True) as con:
        for table, model in TABLES.items():
            assert _count(con, table) == 3, table
            assert _columns(con, table)["run_id"] == "VARCHAR"  # a numeric-looking run id stays text
            staging = _columns(con, f"stg_{table}")
            assert set(model.model_fields) <= set(staging), f"stg_{table} lacks {set(model.model_fields) - set(staging)}"
            assert not set(ORDER_COLUMNS) & set(staging)
        views = [r[0] for r in con.execute("select view_name from duckdb_views() where not internal").fetchall()]
        for view in views:  # every staging view (unnest helpers included) runs over real data
            _count(con, view)
        assert {"stg_audit_mappings", "stg_verdict_criteria", "stg_trace_turns"} <= set(views)


def test_part_missing_a_column_shows_null_in_the_view(tmp_path: Path, sql_dir: Path) -> None:
    path = write_records(tmp_path, "traces", [rich_record(Trace, variant=1, run_id="r")], run_id="r")
    assert path is not None
    pq.write_table(pq.read_table(path).drop_columns(["session_id"]), path)
    with duckdb.connect(str(build_catalog(tmp_path, sql_dir)), read_only=True) as con:
        assert con.execute("select session_id, trace_id is not null from traces").fetchall() == [(None, True)]


def test_catalog_staleness_follows_the_data(tmp_path: Path, sql_dir: Path) -> None:
    assert catalog_is_stale(tmp_path, sql_dir)
    build_catalog(tmp_path, sql_dir)
    assert not catalog_is_stale(tmp_path, sql_dir)
    time.sleep(0.01)
    write_records(tmp_path, "traces", [rich_record(Trace, variant=1, run_id="r")], run_id="r")
    assert catalog_is_stale(tmp_path, sql_dir)


def _staging(tmp_path: Path, files: dict[str, str], intermediate: dict[str, str] | None = None) -> Path:
    sql = tmp_path / "sql"
    for folder, texts in (("staging", files), ("intermediate", intermediate or {})):
        (sql / folder).mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            (sql / folder / name).write_text(text)
    return sql


def test_staging_views_may_depend_on_later_files(tmp_path: Path) -> None:
    sql = _staging(tmp_path, {"stg_a.sql": "-- uses stg_b\nselect n + 1 as m from stg_b;\n",
                              "stg_b.sql": "select count(*) as n from traces"})
    with duckdb.connect(str(build_catalog(tmp_path / "data", sql)), read_only=True) as con:
        assert con.execute("select m from stg_a").fetchall() == [(1,)]


@pytest.mark.parametrize(("files", "match"), [
    ({"Bad-Name.sql": "select 1"}, "stg_<snake_case>"),
    ({"stg_x.sql": "create table t (a int)"}, "one select"),
    ({"stg_x.sql": "select nope from traces"}, "stg_x.sql"),
    ({"stg_x.sql": "select * from no_such_view"}, "stg_x.sql"),
])
def test_bad_staging_file_is_a_user_error_and_keeps_the_old_catalog(tmp_path: Path, files: dict[str, str],
                                                                     match: str) -> None:
    root = tmp_path / "data"
    db = build_catalog(root, tmp_path / "no-sql")
    before = db.read_bytes()
    with pytest.raises(UserError, match=match):
        build_catalog(root, _staging(tmp_path, files))
    assert db.read_bytes() == before
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []


def test_intermediate_views_build_on_staging_and_on_each_other(tmp_path: Path) -> None:
    sql = _staging(tmp_path, {"stg_z.sql": "select count(*) as n from traces"},
                   {"int_a.sql": "-- uses int_b, a later file\nselect m * 10 as k from int_b",
                    "int_b.sql": "select n + 1 as m from stg_z;"})
    with duckdb.connect(str(build_catalog(tmp_path / "data", sql)), read_only=True) as con:
        assert con.execute("select k from int_a").fetchall() == [(10,)]


@pytest.mark.parametrize(("files", "intermediate", "match"), [
    ({}, {"stg_x.sql": "select 1"}, "int_<snake_case>"),
    ({"stg_x.sql": "select * from int_y"}, {"int_y.sql": "select 1 as a"}, "stg_x.sql"),  # staging comes first
    ({}, {"int_x.sql": "select * from no_such_view"}, "int_x.sql"),
    ({}, {"int_x.sql": "select 1 as a where $run_id is null"}, "no parameters"),
])
def test_bad_intermediate_file_is_a_user_error(tmp_path: Path, files: dict[str, str], intermediate: dict[str, str],
                                               match: str) -> None:
    with pytest.raises(UserError, match=match):
        build_catalog(tmp_path / "data", _staging(tmp_path, files, intermediate))


def test_catalog_staleness_follows_the_view_files(tmp_path: Path) -> None:
    root = tmp_path / "data"
    sql = _staging(tmp_path, {"stg_z.sql": "select 1 as n"})
    build_catalog(root, sql)
    assert not catalog_is_stale(root, sql)
    time.sleep(0.01)
    _staging(tmp_path, {}, {"int_a.sql": "select n from stg_z"})  # a new layer folder and file
    assert catalog_is_stale(root, sql)
    build_catalog(root, sql)
    assert not catalog_is_stale(root, sql)
    time.sleep(0.01)
    (sql / "intermediate" / "int_a.sql").write_text("select n + 1 as n from stg_z")
    assert catalog_is_stale(root, sql)


_REBUILD = "import sys; from pathlib import Path; from adat.warehouse import build_catalog; " \
           "build_catalog(Path(sys.argv[1]), Path(sys.argv[2]))"
_READ = "import duckdb, sys; con = duckdb.connect(sys.argv[1], read_only=True); " \
        "print(con.execute('select count(*) from stg_verdicts').fetchone()[0])"


def test_read_only_connection_stays_usable_while_the_catalog_is_rebuilt(fixture_root: Path, tmp_path: Path,
                                                                        sql_dir: Path) -> None:
    root = tmp_path / "analyst"
    write_records(root, "tests", read_records(fixture_root, "tests", run_id="r1"), run_id="r1")
    db = build_catalog(root, sql_dir)  # verdicts has no files yet: a zero-row view
    old = duckdb.connect(str(db), read_only=True)
    try:
        assert (_count(old, "stg_tests"), _count(old, "stg_verdicts")) == (2, 0)
        # the night's run lands: r1's verdicts (a new table) and r2's tests (a new partition)
        write_records(root, "verdicts", read_records(fixture_root, "verdicts", run_id="r1"), run_id="r1")
        write_records(root, "tests", read_records(fixture_root, "tests", run_id="r2"), run_id="r2")
        rebuild = subprocess.Popen([sys.executable, "-c", _REBUILD, str(root), str(sql_dir)],
                                   stderr=subprocess.PIPE, text=True)
        answered = 0
        while rebuild.poll() is None:  # the analyst keeps querying during the rebuild
            assert _count(old, "stg_verdicts") == 0
            answered += 1
        assert rebuild.returncode == 0, rebuild.stderr.read() if rebuild.stderr else ""
        assert answered > 0
        assert _count(old, "stg_verdicts") == 0  # the old file's views still answer...
        assert _count(old, "stg_tests") == 3     # ...and still re-read the Parquet glob
        fresh = subprocess.run([sys.executable, "-c", _READ, str(db)], capture_output=True, text=True, check=True)
        assert fresh.stdout.strip() == "2"       # a new read-only connection sees the new views
    finally:
        old.close()
    with duckdb.connect(str(db), read_only=True) as new:
        assert _count(new, "stg_verdicts") == 2
