"""Every sql/metrics file, run on the hand-made warehouse, against values computed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.warehouse import declared_params, run_query
from tests.test_sql.conftest import SQL_DIR
from tests.test_sql.expected_metrics import EXPECTED
from tests.test_sql.rows import assert_rows
from tests.test_sql.sql_sources import catalog_views, declared_inputs, header_lines, read_relations

METRICS = sorted(path.stem for path in (SQL_DIR / "metrics").glob("*.sql"))
HEADER_LINES = ("-- grain:", "-- inputs:", "-- params:")


def metric_file(name: str) -> Path:
    return SQL_DIR / "metrics" / f"{name}.sql"


@pytest.mark.parametrize("name", METRICS)
def test_metric_matches_hand_computed_values(fixture_db: Path, name: str) -> None:
    assert name in EXPECTED, f"sql/metrics/{name}.sql has no expected values in tests/test_sql/expected_metrics.py"
    for case in EXPECTED[name]:
        table = run_query(fixture_db, metric_file(name), {"run_id": None, **case.params})
        assert_rows(table, case)


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize("run_id", ["r1", "r2"])
def test_run_filter_keeps_only_that_run(fixture_db: Path, name: str, run_id: str) -> None:
    assert name in EXPECTED
    for case in EXPECTED[name]:
        table = run_query(fixture_db, metric_file(name), {"run_id": run_id, **case.params})
        assert_rows(table, case, run_id)


def test_no_expected_values_without_a_metric_file() -> None:
    assert sorted(set(EXPECTED) - set(METRICS)) == []


@pytest.mark.parametrize("folder", ["metrics", "checks"])
def test_files_follow_the_sql_conventions(fixture_db: Path, folder: str) -> None:
    files = sorted((SQL_DIR / folder).glob("*.sql"))
    assert files
    # metrics and checks read the catalog's staging and intermediate views (or their own CTEs),
    # never base tables, files or a view name the catalog does not have
    views = catalog_views(fixture_db, "stg_", "int_")
    for path in files:
        header = header_lines(path)
        assert header[0].startswith(f"-- {path.stem}:"), path
        for prefix in HEADER_LINES:
            assert any(line.startswith(prefix) for line in header), f"{path}: no '{prefix}' line"
        assert "run_id" in declared_params(path), path
        assert "($run_id is null or" in path.read_text(encoding="utf-8"), f"{path}: no optional run filter"
        allowed = {"verdicts"} if path.stem == "duplicate_verdicts" else set()  # see its header
        strays = read_relations(path) - views - allowed
        assert not strays, f"{path}: reads {sorted(strays)}"
        assert declared_inputs(path) == read_relations(path), f"{path}: '-- inputs:' is not what the file reads"


def test_execution_label_counts_gives_kinds_without_labels_zero_and_keeps_orphans_in_all(tmp_path: Path) -> None:
    # on top of the fixture: a faulty variant F9 with one plain label only, and an original-agent
    # label of a test that is not among r1's tests
    from adat.warehouse import build_catalog, write_records
    from tests.test_sql import warehouse_fixture as fx

    root = fx.write_metrics_fixture(tmp_path / "data")
    write_records(root, "execution_labels", [fx.exec_label("r1", "e-f9", "p1", "TP", "F9", "F9"),
                                             fx.exec_label("r1", "e-x", "te-missing", "FP")], run_id="r1")
    table = run_query(build_catalog(root, SQL_DIR), metric_file("execution_label_counts"), {"run_id": "r1"})
    got = {(r["agent_variant"], r["kind"]): (r["labelled"], r["tp"], r["fp"]) for r in table.to_pylist()}
    assert got == {("original", "plain"): (2, 1, 0), ("original", "transformed"): (5, 0, 1),
                   ("original", None): (1, 0, 1),            # the orphan's own row
                   ("original", "all"): (8, 1, 2),           # 7 of the fixture + the orphan
                   ("F9", "plain"): (1, 1, 0),
                   ("F9", "transformed"): (0, 0, 0),         # no label of this kind: 0, not missing
                   ("F9", "all"): (1, 1, 0)}
    assert [(r["agent_variant"], r["kind"]) for r in table.to_pylist()][:4] == [
        ("original", "plain"), ("original", "transformed"), ("original", None), ("original", "all")]


def test_an_inconclusive_no_judge_gave_is_not_the_judges(tmp_path: Path) -> None:
    """A target error or a failed judge call leaves an 'inconclusive' with judged = false: it counts
    among the executions but, as in verdict_counts, not as the judge's inconclusive."""
    from adat.warehouse import build_catalog, write_records
    from tests.test_sql import warehouse_fixture as fx

    root = fx.write_metrics_fixture(tmp_path / "data")
    write_records(root, "executions", [fx.execution("r1", "e-x", "p1")], run_id="r1")
    unjudged = fx.verdict("r1", "e-x", "p1", "inconclusive").model_copy(update={"judged": False})
    write_records(root, "verdicts", [unjudged], run_id="r1")
    db = build_catalog(root, SQL_DIR)
    share = {r["kind"]: r for r in run_query(db, metric_file("inconclusive_share"), {"run_id": "r1"}).to_pylist()}
    assert (share["plain"]["executions"], share["plain"]["inconclusive"]) == (4, 0)
    assert (share["all"]["executions"], share["all"]["inconclusive"]) == (10, 1)
    counts = run_query(db, metric_file("verdict_counts"), {"run_id": "r1"}).to_pylist()
    plain = next(r for r in counts if r["kind"] == "plain")
    assert (plain["inconclusive"], plain["unjudged"]) == (0, 1)
