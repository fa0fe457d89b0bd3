from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from adat.errors import UserError
from adat.warehouse import (
    available_queries,
    build_catalog,
    declared_params,
    format_table,
    resolve_query,
    run_query,
    sql_command,
)

RUN_FILTER = """-- test_counts: tests per run.
-- grain: run_id
-- params: run_id
select run_id, count(*) as n_tests
from stg_tests
where ($run_id is null or run_id = $run_id)
group by run_id
order by run_id
"""


@pytest.fixture
def sql(tmp_path: Path, sql_dir: Path) -> Path:
    """A sql/ folder: the real staging views plus two metrics and a check."""
    folder = tmp_path / "sql"
    (folder / "metrics").mkdir(parents=True)
    (folder / "checks").mkdir()
    (folder / "staging").symlink_to(sql_dir / "staging")
    (folder / "metrics" / "test_counts.sql").write_text(RUN_FILTER)
    (folder / "metrics" / "verdict_share.sql").write_text(
        "-- params: run_id, verdict\nselect count(*) as n from stg_verdicts\n"
        "where ($run_id is null or run_id = $run_id) and verdict = $verdict\n")
    (folder / "checks" / "stg_tests.sql").write_text("select * from stg_tests where n_steps = 0\n")
    return folder


def test_names_resolve_in_metrics_checks_staging(sql: Path) -> None:
    assert resolve_query("test_counts", sql) == sql / "metrics" / "test_counts.sql"
    assert resolve_query("metrics/test_counts", sql) == sql / "metrics" / "test_counts.sql"
    assert resolve_query("stg_verdicts.sql", sql) == sql / "staging" / "stg_verdicts.sql"
    assert resolve_query("staging/stg_tests", sql) == sql / "staging" / "stg_tests.sql"
    own = sql.parent / "mine.sql"
    own.write_text("select 1")
    assert resolve_query(str(own), sql) == own
    assert "metrics/test_counts" in available_queries(sql)


def test_unknown_name_is_a_user_error_listing_close_matches(sql: Path) -> None:
    with pytest.raises(UserError, match=r"no query named 'stg_verdict'.*stg_verdicts"):
        resolve_query("stg_verdict", sql)
    with pytest.raises(UserError, match="ambiguous.*checks/stg_tests.*staging/stg_tests"):
        resolve_query("stg_tests", sql)


def test_params_are_declared_in_the_header(sql: Path) -> None:
    assert declared_params(sql / "metrics" / "test_counts.sql") == ["run_id"]
    assert declared_params(sql / "metrics" / "verdict_share.sql") == ["run_id", "verdict"]
    assert declared_params(sql / "staging" / "stg_verdicts.sql") == []


def test_run_filter_is_bound_not_spliced(fixture_root: Path, sql: Path) -> None:
    db = build_catalog(fixture_root, sql)
    query = sql / "metrics" / "test_counts.sql"
    assert run_query(db, query, {"run_id": None}).to_pylist() == [{"run_id": "r1", "n_tests": 2},
                                                                  {"run_id": "r2", "n_tests": 1}]
    assert run_query(db, query, {"run_id": "r2"}).to_pylist() == [{"run_id": "r2", "n_tests": 1}]
    assert run_query(db, query, {"run_id": "r1' or '1'='1"}).num_rows == 0
    share = sql / "metrics" / "verdict_share.sql"
    assert run_query(db, share, {"run_id": "r1", "verdict": "pass"}).to_pylist() == [{"n": 1}]


def test_parameter_mistakes_are_user_errors(fixture_root: Path, sql: Path) -> None:
    db = build_catalog(fixture_root, sql)
    with pytest.raises(UserError, match="missing value for parameter.*verdict"):
        run_query(db, sql / "metrics" / "verdict_share.sql", {"run_id": None})
    with pytest.raises(UserError, match="takes no parameter.*run_id"):
        run_query(db, sql / "staging" / "stg_tests.sql", {"run_id": "r1"})
    undeclared = sql / "metrics" / "undeclared.sql"
    undeclared.write_text("select * from stg_tests where run_id = $run_id\n")
    with pytest.raises(UserError, match="undeclared.sql"):
        run_query(db, undeclared, {"run_id": None})


def test_catalog_is_opened_read_only_and_sql_errors_name_the_file(fixture_root: Path, sql: Path) -> None:
    db = build_catalog(fixture_root, sql)
    writer = sql / "metrics" / "writer.sql"
    writer.write_text("create table sneaky as select 1 as x\n")
    with pytest.raises(UserError, match=r"writer\.sql.*exactly one SELECT, not CREATE"):
        run_query(db, writer, {})
    with pytest.raises(UserError, match="catalog not found"):
        run_query(sql / "missing.duckdb", writer, {})


def test_formats(fixture_root: Path, sql: Path, tmp_path: Path) -> None:
    db = build_catalog(fixture_root, sql)
    ordered = sql / "metrics" / "mappings.sql"
    ordered.write_text("select * from stg_audit_mappings order by run_id, test_id, mapping_index")
    table = run_query(db, ordered, {})
    csv_text = format_table(table, "csv")
    assert csv_text is not None
    lines = csv_text.splitlines()
    assert lines[0] == "run_id,test_id,validity,mapping_index,boundary,side,explicit,passages"
    assert lines[1] == 'r1,t1,explicit,0,cancel.pending_only,denied,True,"[""only pending""]"'
    text = format_table(table, "table")
    assert text is not None and "cancel.pending_only" in text and "2 rows" in text
    with pytest.raises(UserError, match="--out"):
        format_table(table, "parquet")
    out = tmp_path / "m.parquet"
    assert format_table(table, "parquet", out) is None
    assert pq.read_table(out).equals(table)


def test_sql_command_builds_the_catalog_and_filters_by_run(fixture_root: Path, sql: Path, tmp_path: Path) -> None:
    assert not (fixture_root / "adat.duckdb").exists()
    text = sql_command(fixture_root, sql, "test_counts", "r1", "csv", None)
    assert text == "run_id,n_tests\nr1,2\n"
    assert (fixture_root / "adat.duckdb").is_file()
    out = tmp_path / "all.csv"
    assert sql_command(fixture_root, sql, "metrics/test_counts", None, "csv", out) is None
    assert out.read_text() == "run_id,n_tests\nr1,2\nr2,1\n"
    verdicts = sql_command(fixture_root, sql, "verdict_share", "r2", "table", None, {"verdict": "fail"})
    assert verdicts is not None and "1 row" in verdicts
