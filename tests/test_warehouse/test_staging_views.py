"""The sql/staging views over the hand-made fixture warehouse give the known values."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.warehouse import build_catalog, resolve_query, run_query


@pytest.fixture
def db(fixture_root: Path, sql_dir: Path) -> Path:
    return build_catalog(fixture_root, sql_dir)


def _rows(db: Path, tmp_path: Path, sql: str) -> list[dict[str, object]]:
    query = tmp_path / "q.sql"
    query.write_text(sql)
    return run_query(db, query, {}).to_pylist()


def test_stg_verdicts_keeps_the_latest_verdict_per_execution(db: Path, sql_dir: Path) -> None:
    rows = run_query(db, resolve_query("stg_verdicts", sql_dir), {}).to_pylist()
    got = sorted((r["run_id"], r["execution_id"], r["verdict"], r["n_criteria"]) for r in rows)
    assert got == [("r1", "e1", "pass", 2), ("r1", "e2", "inconclusive", 0), ("r2", "e1", "fail", 1)]


def test_stg_verdict_criteria_has_one_row_per_criterion(db: Path, tmp_path: Path) -> None:
    rows = _rows(db, tmp_path, "select run_id, execution_id, criterion_index, criterion_kind, holds "
                               "from stg_verdict_criteria order by run_id, execution_id, criterion_index")
    assert [tuple(r.values()) for r in rows] == [
        ("r1", "e1", 0, "success", True),
        ("r1", "e1", 1, "failure", False),
        ("r2", "e1", 0, "success", None),
    ]


def test_stg_audit_views(db: Path, tmp_path: Path) -> None:
    labels = _rows(db, tmp_path, "select test_id, is_valid, is_explicit, n_mappings from stg_audit_labels order by 1")
    assert [tuple(r.values()) for r in labels] == [("t1", True, True, 2), ("t2", False, False, 0)]
    mappings = _rows(db, tmp_path, "select test_id, mapping_index, boundary, side, explicit, passages "
                                   "from stg_audit_mappings order by mapping_index")
    assert [tuple(r.values()) for r in mappings] == [
        ("t1", 0, "cancel.pending_only", "denied", True, ["only pending"]),
        ("t1", 1, "confirm.explicit", "allowed", False, []),
    ]


def test_stg_execution_turns_unnest_in_order(db: Path, tmp_path: Path) -> None:
    rows = _rows(db, tmp_path, "select run_id, execution_id, turn_index, role from stg_execution_turns "
                               "where run_id = 'r1' and execution_id = 'e2' order by turn_index")
    assert [(r["turn_index"], r["role"]) for r in rows] == [(0, "user"), (1, "agent")]
    tests = _rows(db, tmp_path, "select run_id, test_id, n_steps from stg_tests order by 1, 2")
    assert [tuple(r.values()) for r in tests] == [("r1", "t1", 2), ("r1", "t2", 1), ("r2", "t1", 2)]


def test_every_staging_file_has_a_grain_and_source_header(sql_dir: Path) -> None:
    for path in sorted((sql_dir / "staging").glob("*.sql")):
        header = path.read_text().split("\nselect", 1)[0]
        assert "-- grain:" in header and "-- source:" in header, path.name
