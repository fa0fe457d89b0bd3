"""sql/report: conventions, and each query's rows on the hand-made warehouse, worked out by hand."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from adat.warehouse import build_catalog, declared_params, write_records
from adat.warehouse.queries import ReportQueries
from tests.test_sql.conftest import SQL_DIR
from tests.test_sql.sql_sources import (
    catalog_views,
    declared_inputs,
    header_field,
    header_lines,
    read_relations,
)
from tests.test_sql.warehouse_fixture import T0, Run, execution, verdict, write_metrics_fixture

REPORT = sorted(path.stem for path in (SQL_DIR / "report").glob("*.sql"))


@pytest.fixture(scope="module")
def queries(tmp_path_factory: pytest.TempPathFactory) -> ReportQueries:
    """The fixture warehouse (r1, r2) plus r3: a later pipeline run re-judging some of r1's tests."""
    root = write_metrics_fixture(tmp_path_factory.mktemp("report-sql") / "data")
    r = "r3"
    runs = {"x-p1": ("p1", "fail"), "x-p2": ("p2", "pass"), "x-t3": ("t3", "pass"), "x-t4": ("t4", "fail"),
            "x-n1": ("n1", "pass")}
    write_records(root, "runs", [Run(run_id=r, flow="pipeline", started_at=T0 + timedelta(days=1),
                                     status="completed")], run_id=r)
    write_records(root, "executions", [execution(r, e, t) for e, (t, _) in runs.items()], run_id=r)
    write_records(root, "verdicts", [verdict(r, e, t, v) for e, (t, v) in runs.items()], run_id=r)
    build_catalog(root, SQL_DIR)
    return ReportQueries(root, SQL_DIR)


@pytest.mark.parametrize("name", REPORT)
def test_report_query_follows_the_conventions(queries: ReportQueries, name: str) -> None:
    path = SQL_DIR / "report" / f"{name}.sql"
    assert header_lines(path)[0].startswith(f"-- {name}:"), path
    assert header_field(path, "grain") and header_field(path, "inputs"), f"{path}: needs grain and inputs lines"
    assert declared_params(path), f"{path}: a report query takes its run (or runs) as parameters"
    db = queries.data_root / "adat.duckdb"
    strays = read_relations(path) - catalog_views(db, "stg_", "int_")
    assert not strays, f"{path}: reads {sorted(strays)} (only stg_* and int_* views)"
    assert declared_inputs(path) == read_relations(path), f"{path}: '-- inputs:' is not what the file reads"


def test_transformation_progress_counts_tests_and_first_covered_statements(queries: ReportQueries) -> None:
    rows = queries.rows("transformation_progress", run_id="r1")
    assert [r["attempt_no"] for r in rows] == [1, 2, 3, 4, 5, 6, 7]
    # tests at attempts 1 (h1), 3 (h2), 5 (h2 again), 7 (h3)
    assert [r["transformed_tests"] for r in rows] == [1, 1, 2, 2, 3, 3, 4]
    assert [r["statements_covered"] for r in rows] == [1, 1, 2, 2, 2, 2, 3]


def test_test_verdicts_keep_the_worst_execution(queries: ReportQueries) -> None:
    rows = {r["test_id"]: r for r in queries.rows("test_verdicts", run_id="r1")}
    assert {t: r["verdict"] for t, r in rows.items()} == {
        "p1": "pass", "p2": "fail", "p3": "fail", "t1": "pass", "t2": "fail", "t3": "inconclusive", "t4": "pass"}
    assert rows["t2"]["execution_id"] == "e-t2"  # e-t2 fail beats e-t2b pass
    assert rows["t1"]["execution_id"] == "e-t1"  # two passes: the first execution id


def test_verdict_changes_put_pass_to_fail_first(queries: ReportQueries) -> None:
    rows = queries.rows("verdict_changes", run_a="r1", run_b="r3")
    assert [(r["test_id"], r["change"]) for r in rows] == [
        ("p1", "pass -> fail"), ("t4", "pass -> fail"),
        ("p2", "fail -> pass"), ("t3", "inconclusive -> pass"),
        ("n1", "only in b"), ("p3", "only in a"), ("t1", "only in a"), ("t2", "only in a")]


def test_audit_validity_counts_include_unaudited_tests(queries: ReportQueries) -> None:
    rows = {(r["kind"], r["validity"]): r["tests"] for r in queries.rows("audit_validity_counts", run_id="r1")}
    assert rows == {("plain", "explicit"): 1, ("plain", "valid"): 1, ("plain", "invalid"): 1,
                    ("transformed", "explicit"): 2, ("transformed", "valid"): 1, ("transformed", "unaudited"): 1}


def test_non_passing_executions_are_the_original_agents_fails_then_inconclusives(queries: ReportQueries) -> None:
    rows = queries.rows("non_passing_executions", run_id="r1")
    assert [(r["execution_id"], r["verdict"], r["audit_validity"], r["execution_label"]) for r in rows] == [
        ("e-p2", "fail", "valid", "TP"), ("e-p3", "fail", "invalid", None),
        ("e-t2", "fail", "explicit", "FP"), ("e-t3", "inconclusive", "valid", "INC")]
    turns = queries.rows("execution_transcripts", run_id="r1", execution_ids=["e-p2"])
    assert [(t["turn_index"], t["role"], t["text"]) for t in turns] == [(0, "user", "message 0"), (1, "agent", "message 1")]


def test_previous_run_is_the_latest_earlier_run_of_the_same_flow(queries: ReportQueries) -> None:
    assert [r["run_id"] for r in queries.rows("previous_run", run_id="r3")] == ["r1"]
    assert queries.rows("previous_run", run_id="r1") == []  # nothing earlier
    assert queries.rows("previous_run", run_id="r2") == []  # r2 is a regress run


def test_show_queries_find_tests_and_executions(queries: ReportQueries) -> None:
    assert [(r["run_id"], r["item"], r["test_id"]) for r in queries.rows("item_lookup", item_id="e-t2b")] == [
        ("r1", "execution", "t2")]
    assert [r["run_id"] for r in queries.rows("item_lookup", item_id="p1")] == ["r1"]
    executions = queries.rows("show_executions", run_id="r1", test_id="t2", agent_variant="original")
    assert [(e["execution_id"], e["verdict"], e["label"]) for e in executions] == [("e-t2", "fail", "FP"),
                                                                                  ("e-t2b", "pass", "TN")]
    (test,) = queries.rows("show_test", run_id="r1", test_id="t4")
    assert test["goal"] == "goal of t4" and test["validity"] is None


def test_report_queries_run_by_name_from_the_cli_resolver() -> None:
    from adat.warehouse import resolve_query

    assert resolve_query("transformation_progress", SQL_DIR) == SQL_DIR / "report" / "transformation_progress.sql"
    assert Path(SQL_DIR / "intermediate" / "int_test_verdicts.sql").is_file()


def test_previous_run_diff_as_markdown(queries: ReportQueries) -> None:
    from adat.reporting.run_diff import diff_markdown, run_diff

    assert queries.rows("previous_run", run_id="r1") == []  # the first night
    assert [r["run_id"] for r in queries.rows("previous_run", run_id="r3")] == ["r1"]
    diff = run_diff(queries.data_root, "r1", "r3")
    assert [r["test_id"] for r in diff.pass_to_fail] == ["p1", "t4"]
    text = diff_markdown(diff)
    assert "| verdicts pass → fail | 2 |" in text and "| tests judged in both | 4 |" in text
    rows = [line for line in text.splitlines() if line.startswith("| pass -> fail")]
    assert rows == ["| pass -> fail | `p1` | plain | original |", "| pass -> fail | `t4` | transformed | original |"]
    assert "statements appeared" not in text  # r3 extracted none: not compared
