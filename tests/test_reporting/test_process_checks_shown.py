"""Process checks are stored with the verdict and shown next to the judge's own verdict: the staging
views, `adat show`, the HTML report and the sql/checks query that guards "a broken check fails"."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from adat.records import AgentToolCall, ProcessAssertion, ProcessCheckResult, Run, Turn, Verdict
from adat.reporting.html_report import render_report, report_context
from adat.reporting.show import show_item
from adat.spec_records import SpecAssertion
from adat.warehouse import build_catalog, write_records
from adat.warehouse.queries import ReportQueries
from adat.warehouse.sql_runner import run_query
from tests.test_sql import warehouse_fixture as fx
from tests.test_sql.conftest import SQL_DIR

RUN = "rp"
STATEMENT = "The agent cancels an order only after the user confirms."
BROKEN = ProcessCheckResult(statement_id="st1", statement=STATEMENT, kind="confirm_before",
                            check="a change only after a confirmation (confirm_before: cancelOrder)", outcome="fail",
                            detail="cancelOrder called in turn 0 before the agent asked for a confirmation")


def _write(root: Path, verdict_value: str) -> Path:
    write_records(root, "runs", [Run(run_id=RUN, flow="pipeline", started_at=fx.T0, finished_at=fx.T0,
                                     status="completed")], run_id=RUN)
    write_records(root, "tests", [fx.test_case(RUN, "t1", "plain", "st1")], run_id=RUN)
    execution = fx.execution(RUN, "x1", "t1").model_copy(update={"turns": [
        Turn(role="user", text="cancel my order"),
        Turn(role="agent", text="As you confirmed, I've cancelled it.", tool_calls=[AgentToolCall.make("cancelOrder")])]})
    write_records(root, "executions", [execution], run_id=RUN)
    write_records(root, "verdicts", [Verdict(run_id=RUN, execution_id="x1", test_id="t1", verdict=verdict_value,
                                             judge_verdict="pass", rationale="the agent cancelled",
                                             process_checks=[BROKEN])], run_id=RUN)
    write_records(root, "process_assertions", [ProcessAssertion(
        run_id=RUN, statement_id="st1", statement=STATEMENT, tools_seen=["cancelOrder"],
        assertion=SpecAssertion(kind="confirm_before", clause="st1", tools=["cancelOrder"], values=["yes"]))],
        run_id=RUN)
    return build_catalog(root, SQL_DIR)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("process-checks") / "data"
    _write(data, "fail")
    return data


def test_show_and_report_put_the_checks_beside_the_judges_verdict(root: Path) -> None:
    console = Console(record=True, width=240)
    show_item(console, root, "t1", run_id=RUN)
    text = console.export_text()
    assert "process checks (the judge alone said: pass)" in text
    assert f'[fail] "{STATEMENT}": a change only after a confirmation (confirm_before: cancelOrder)' in text
    html = render_report(report_context(ReportQueries(root, SQL_DIR), RUN))
    assert "Process checks</b> (the judge alone said: pass)" in html and "confirm_before: cancelOrder" in html


def test_passing_checks_are_counted_not_listed_beside_a_failed_one(tmp_path: Path) -> None:
    """Every statement's checks run on every test, so a verdict holds dozens: `adat show` and the
    report list the failed (and unobservable) ones and count the passing ones."""
    from adat.reporting.show import split_checks

    passing = [BROKEN.model_copy(update={"statement_id": f"st{i}", "statement": f"Rule {i}.", "outcome": "pass",
                                         "detail": ""}) for i in range(2, 5)]
    root = tmp_path / "data"
    _write(root, "fail")
    write_records(root, "verdicts", [Verdict(run_id=RUN, execution_id="x1", test_id="t1", verdict="fail",
                                             judge_verdict="pass", rationale="the agent cancelled",
                                             process_checks=[passing[0], BROKEN, *passing[1:]])], run_id=RUN)
    build_catalog(root, SQL_DIR)
    console = Console(record=True, width=240)
    show_item(console, root, "t1", run_id=RUN)
    text = console.export_text()
    assert f'[fail] "{STATEMENT}"' in text and "[pass] 3 more checks passed" in text and "Rule 2." not in text
    html = render_report(report_context(ReportQueries(root, SQL_DIR), RUN))
    assert "3 more checks passed" in html and "Rule 3." not in html
    rows = [{"outcome": "pass"}, {"outcome": "pass"}]
    assert split_checks(rows) == (rows, 0)  # all passed: listed (only shown when the verdict is not a pass)


def test_staging_views_unnest_the_checks_and_the_mapped_assertions(root: Path) -> None:
    db = build_catalog(root, SQL_DIR)
    checks = run_query(db, SQL_DIR / "report" / "show_process_checks.sql",
                       {"run_id": RUN, "execution_ids": ["x1"]}).to_pylist()
    assert [(c["kind"], c["outcome"], c["judge_verdict"], c["verdict"]) for c in checks] == [
        ("confirm_before", "fail", "pass", "fail")]
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        mapped = con.execute("select statement_id, assertion_index, kind, tools from stg_process_assertions").fetchall()
    assert mapped == [("st1", 0, "confirm_before", ["cancelOrder"])]
    check_file = SQL_DIR / "checks" / "process_check_failures_not_failing.sql"
    assert run_query(db, check_file, {"run_id": RUN}).num_rows == 0


def test_the_data_check_catches_a_broken_check_that_did_not_fail_the_verdict(tmp_path: Path) -> None:
    db = _write(tmp_path / "data", "pass")
    rows = run_query(db, SQL_DIR / "checks" / "process_check_failures_not_failing.sql", {"run_id": RUN}).to_pylist()
    assert [(r["execution_id"], r["verdict"]) for r in rows] == [("x1", "pass")]
