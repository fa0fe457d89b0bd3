"""Every sql/checks file: no rows on the consistent fixture, and at least the injected violation
on a copy of it with one specific violation added."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adat.records import Attempt, ProcessCheckResult, Statement, Verdict
from adat.warehouse import build_catalog, declared_params, run_query, write_records
from tests.test_sql import warehouse_fixture as fx
from tests.test_sql.conftest import SQL_DIR

CHECKS = sorted(path.stem for path in (SQL_DIR / "checks").glob("*.sql"))

#: check name -> (writes one violation into a warehouse root, a row the check must return)
Injection = tuple[Callable[[Path], None], dict[str, Any]]


def _write(table: str, *records: Any, run_id: str = "r1") -> Callable[[Path], None]:
    """An injection that appends ``records`` to ``table`` as a new part (the latest rows win)."""
    def run(root: Path) -> None:
        write_records(root, table, list(records), run_id=run_id)
    return run


def _both(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def run(root: Path) -> None:
        for step in steps:
            step(root)
    return run


def _moved_statement(root: Path) -> None:
    """h7 re-ranked to 1, which h1 already holds."""
    h7 = next(s for s in fx.r1_tables()["statements"] if isinstance(s, Statement) and s.statement_id == "h7")
    write_records(root, "statements", [h7.model_copy(update={"rank": 1})], run_id="r1")


INJECTIONS: dict[str, Injection] = {
    "tests_without_statement": (
        _write("tests", fx.test_case("r1", "t9", "transformed", "h-missing", "k1"),
               fx.test_case("r1", "p9", "plain", None)),
        {"test_id": "t9", "problem": "statement not found"}),
    "attempts_without_test": (
        _write("attempts", fx.attempt("r1", 8, "h3", "k2", "te-missing", "pass", 1.0)),
        {"attempt_no": 8, "test_id": "te-missing"}),
    "verdicts_without_execution": (
        _write("verdicts", fx.verdict("r1", "ex-missing", "p1", "pass")),
        {"execution_id": "ex-missing", "problem": "execution not found in the run"}),
    "executions_without_test": (
        _both(_write("executions", fx.execution("r1", "e-x", "te-missing")),
              _write("verdicts", fx.verdict("r1", "e-x", "te-missing", "pass"))),
        {"execution_id": "e-x", "test_id": "te-missing"}),
    "duplicate_verdicts": (
        # two verdicts for one execution in one write (a later part alone would be a recomputation)
        _write("verdicts", fx.verdict("r1", "e-p1", "p1", "pass"), fx.verdict("r1", "e-p1", "p1", "fail")),
        {"execution_id": "e-p1", "verdicts": 2}),
    "executions_without_verdict": (
        _write("executions", fx.execution("r1", "e-p1c", "p1")),
        {"execution_id": "e-p1c", "problem": "no verdict"}),
    "attempt_applicability_mismatch": (
        _write("attempts", Attempt(run_id="r1", attempt_no=2, statement_id="h1", instruction_id="k2",
                                   applicable=True, selector="adat2")),
        {"attempt_no": 2, "problem": "applicable but no test_id"}),
    "duplicate_statement_ranks": (
        _moved_statement,
        {"rank": 1, "statements": 2, "statement_ids": ["h1", "h7"]}),
    "attempt_number_gaps": (
        _write("attempts", fx.attempt("r1", 10, "h3", "k2")),
        {"attempt_no": 8, "problem": "missing"}),
    "shared_session_ids": (
        _write("executions", fx.execution("r1", "e-p2", "p2", session="s-d1")),  # reuses d1's session
        {"session_id": "s-d1", "uses": 2}),
    "ungrouped_mappings": (
        _write("audit_labels", fx.label("r1", "t4", "explicit", ("R_refund", "allowed", True))),
        {"grouping_no": 2, "test_id": "t4", "boundary": "R_refund"}),
    "hidden_tests_in_compilation": (
        _write("compile_results", fx.spec_result("r1", "c-h1", "h1", True, split="hidden", iteration=1,
                                                 scope="failing")),
        {"result_id": "c-h1", "problem": "hidden test in compilation"}),
    "duplicate_llm_calls": (
        # the same call appended again in a later flush: stg_llm_calls keeps both rows
        _write("llm_calls", fx.call("r1", "c2", "generator", "openai/gpt-x", 1000, 200, 0.01)),
        {"call_id": "c2", "rows": 2}),
    "process_check_failures_not_failing": (
        # a failed process check on a judged execution whose verdict stayed pass
        _write("verdicts", Verdict(run_id="r1", execution_id="e-p1", test_id="p1", verdict="pass", judge_verdict="pass",
                                   process_checks=[ProcessCheckResult(statement_id="h1", statement="s",
                                                                      kind="confirm_before", check="c",
                                                                      outcome="fail")])),
        {"execution_id": "e-p1", "kind": "confirm_before", "verdict": "pass"}),
    "statements_not_on_agent_reply": (
        _write("statements", fx.statement("r1", "h9", "d1", 2, None)),  # turn 2 is a user message
        {"statement_id": "h9", "problem": "supporting turn is a user message"}),
}


def _params(name: str) -> dict[str, Any]:
    return {param: None for param in declared_params(SQL_DIR / "checks" / f"{name}.sql")}


@pytest.mark.parametrize("name", CHECKS)
def test_check_passes_on_the_consistent_fixture(fixture_db: Path, name: str) -> None:
    rows = run_query(fixture_db, SQL_DIR / "checks" / f"{name}.sql", _params(name)).to_pylist()
    assert rows == []


@pytest.mark.parametrize("name", CHECKS)
def test_check_finds_the_injected_violation(tmp_path: Path, name: str) -> None:
    assert name in INJECTIONS, f"sql/checks/{name}.sql has no injected violation in tests/test_sql/test_checks.py"
    inject, expected = INJECTIONS[name]
    root = fx.write_metrics_fixture(tmp_path / "data")
    inject(root)
    db = build_catalog(root, SQL_DIR)
    query = SQL_DIR / "checks" / f"{name}.sql"
    rows = run_query(db, query, _params(name)).to_pylist()
    assert any(all(row.get(k) == v for k, v in expected.items()) for row in rows), rows
    assert all(row["run_id"] == "r1" for row in rows)
    assert run_query(db, query, {**_params(name), "run_id": "r2"}).num_rows == 0


def test_no_injection_without_a_check_file() -> None:
    assert sorted(set(INJECTIONS) - set(CHECKS)) == []
