"""A `run-suite` run on a faulty variant (the CI case), on top of the hand-made warehouse: the
metrics describe that variant against the suite run on the original, and a run nobody audited
is "not audited" (NULL), never 0.

``r3`` = `run-suite --suite r1` with ``target.fault: F5``: r1's seven tests (copied, as run-suite
copies them), one execution each on F5, no audit. r1's verdicts on the original: p1 pass, p2 fail,
p3 fail, t1 pass+pass, t2 fail+pass, t3 inconclusive, t4 pass. r3 on F5: p1 fail, p2 fail, p3 pass,
t1 fail, t2 fail, t3 fail, t4 pass -> pass -> fail: p1 and t1 (t2 did not pass every time on the
original, t3 was inconclusive there).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from adat.records import Run
from adat.warehouse import build_catalog, run_query, write_records
from tests.test_sql import warehouse_fixture as fx
from tests.test_sql.conftest import SQL_DIR

ON_F5 = {"p1": "fail", "p2": "fail", "p3": "pass", "t1": "fail", "t2": "fail", "t3": "fail", "t4": "pass"}


def write_run_suite_on_fault(root: Path, run_id: str = "r3", fault: str = "F5", suite: str = "r1") -> None:
    """``run_id``: a run_suite run of ``suite``'s tests on ``fault`` (no audit, no activation row)."""
    tests = [t.model_copy(update={"run_id": run_id}) for t in fx.r1_tables()["tests"]]
    write_records(root, "runs", [Run(run_id=run_id, flow="run_suite", started_at=fx.T0 + timedelta(hours=1),
                                     finished_at=fx.T0 + timedelta(hours=1), status="completed",
                                     agent_variant=fault, suite_run_id=suite)], run_id=run_id)
    write_records(root, "tests", tests, run_id=run_id)
    write_records(root, "executions", [fx.execution(run_id, f"x-{t}", t, fault) for t in ON_F5], run_id=run_id)
    write_records(root, "verdicts", [fx.verdict(run_id, f"x-{t}", t, v) for t, v in ON_F5.items()], run_id=run_id)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = fx.write_metrics_fixture(tmp_path_factory.mktemp("variant") / "data")
    write_run_suite_on_fault(root)
    return build_catalog(root, SQL_DIR)


def metric(db: Path, name: str, **params: object) -> list[dict]:
    path = SQL_DIR / "metrics" / f"{name}.sql"
    from adat.warehouse import declared_params

    bound = {p: None for p in declared_params(path)} | {"run_id": "r3"} | params
    return run_query(db, path, bound).to_pylist()


def test_validity_of_a_run_nobody_audited_is_null_not_zero(db: Path) -> None:
    rows = metric(db, "validity_rate")
    assert [(r["kind"], r["counted"], r["audited"], r["valid"], r["validity_rate"]) for r in rows] == [
        ("plain", 3, 0, None, None), ("transformed", 4, 0, None, None), ("all", 7, 0, None, None)]
    explicit = metric(db, "explicit_validity_rate")
    assert {(r["explicit_valid"], r["explicit_validity_rate"]) for r in explicit} == {(None, None)}
    assert metric(db, "llm_cost_per_valid_test")[0]["valid_tests"] is None
    # the audited suite run keeps its figures (t4 unlabelled still counts as not valid there)
    r1 = {r["kind"]: r["validity_rate"] for r in metric(db, "validity_rate", run_id="r1")}
    assert r1["all"] == pytest.approx(5 / 7)


def test_fault_detection_of_a_run_suite_on_a_fault_compares_with_the_suite_run(db: Path) -> None:
    rows = metric(db, "fault_detection")
    assert rows == [{"run_id": "r3", "fault": "F5", "base_run": "r1", "activated": None, "tests_run": 7,
                     "pass_to_fail": 2, "audited_tests": 0, "detecting_tests": None, "detected": True,
                     "evidence": "pass -> fail, not audited"}]
    kills = run_query(db, SQL_DIR / "intermediate" / "int_variant_kills.sql", {}).to_pylist()
    assert sorted(r["test_id"] for r in kills if r["run_id"] == "r3" and r["pass_to_fail"]) == ["p1", "t1"]
    assert not any(r["kills"] for r in kills if r["run_id"] == "r3")  # a kill needs the auditor's TP
    assert metric(db, "mutation_score") == []  # no activation measured: nothing scored


def test_a_fault_that_turns_nothing_from_pass_to_fail_is_not_detected(tmp_path: Path) -> None:
    root = fx.write_metrics_fixture(tmp_path / "data")
    write_run_suite_on_fault(root)
    write_records(root, "verdicts", [fx.verdict("r3", f"x-{t}", t, "pass") for t in ON_F5], run_id="r3")
    row = metric(build_catalog(root, SQL_DIR), "fault_detection")[0]
    assert (row["pass_to_fail"], row["detected"], row["detecting_tests"]) == (0, False, None)


def test_the_report_queries_follow_the_run_variant(db: Path) -> None:
    def report(name: str, **params: object) -> list[dict]:
        return run_query(db, SQL_DIR / "report" / f"{name}.sql", params).to_pylist()

    assert report("run_overview", run_id="r3")[0]["suite_run_id"] == "r1"
    changes = report("verdict_changes", run_a="r1", run_b="r3")
    assert sorted(r["test_id"] for r in changes if r["change"] == "pass -> fail") == ["p1", "t1"]
    failing = report("non_passing_executions", run_id="r3")
    assert sorted(r["test_id"] for r in failing) == ["p1", "p2", "t1", "t2", "t3"]
    counts = metric(db, "verdict_counts")
    assert {r["agent_variant"] for r in counts} == {"F5"}
