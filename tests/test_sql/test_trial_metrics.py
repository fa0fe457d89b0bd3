"""Repeated trials on a hand-made warehouse: pass^k, pass rate and flake class per test
(sql/metrics/test_trials.sql), the gate's history counts (sql/report/gate_tests.sql) and the
gate's decisions (adat.reporting.gate), against values worked out by hand below.

Suite run ``s`` (pipeline) ran tests a–e once on the original: a b c e pass, d fails; the auditor
judged e invalid. Run-suite ``o`` (original, 3 trials each) then ``f`` (fault F, 3 trials each):

    test  o     f (replies)              f rejudged           f class
    a     PPP   FFF (x x x)              -                    stable (0/3)
    b     PPP   PFP (ok, no, ok)         P F P (agrees)       agent-flaky (2/3)
    c     PPP   FPF (no, ok, no)         F F F (trial 2 now F) judge-flaky (1/3)
    d     FFF   FFF                      -                    stable
    e     PPP   FFF                      -                    stable, invalid

Baseline of f = s + o on the original: 4 trials per test (d: 0 passes). One-sided Fisher exact
test, baseline (passes, fails) against f's: a [[4,0],[0,3]] p = 1/C(7,3) = 1/35;
b [[4,0],[2,1]] p = C(3,2)/C(7,6) = 3/7; c [[4,0],[1,2]] p = C(3,1)/C(7,5) = 1/7.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from adat.records import AuditLabel, Execution, Run, TestCase, Turn, Verdict
from adat.reporting.gate import can_reach_alpha, evaluate_gate, regression_p_value
from adat.warehouse import write_records
from adat.warehouse.queries import ReportQueries
from tests.test_sql.warehouse_fixture import T0

TESTS = "abcde"
#: run -> test -> [(verdict, reply, rejudged verdict or None)] per trial
TRIALS: dict[str, dict[str, list[tuple[str, str, str | None]]]] = {
    "s": {"a": [("pass", "ok", None)], "b": [("pass", "ok", None)], "c": [("pass", "ok", None)],
          "d": [("fail", "x", None)], "e": [("pass", "ok", None)]},
    "o": {t: [("fail" if t == "d" else "pass", "x" if t == "d" else "ok", None)] * 3 for t in TESTS},
    "f": {"a": [("fail", "x", None)] * 3,
          "b": [("pass", "ok", "pass"), ("fail", "no", "fail"), ("pass", "ok", "pass")],
          "c": [("fail", "no", "fail"), ("pass", "ok", "fail"), ("fail", "no", "fail")],
          "d": [("fail", "x", None)] * 3, "e": [("fail", "x", None)] * 3},
}
RUNS = {"s": ("pipeline", "original", 0), "o": ("run_suite", "original", 1), "f": ("run_suite", "F", 2)}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trials") / "data"
    for run_id, (flow, variant, hours) in RUNS.items():
        write_records(root, "runs", [Run(run_id=run_id, flow=flow, agent_variant=variant, status="completed",
                                         started_at=T0 + timedelta(hours=hours))], run_id=run_id)
        write_records(root, "tests", [TestCase(test_id=t, run_id=run_id, kind="plain", goal=f"goal {t}",
                                               step_hints=["hi"])
                                      for t in TESTS], run_id=run_id)
        executions, verdicts, rejudged = [], [], []
        for test, trials in TRIALS[run_id].items():
            for n, (verdict, reply, again) in enumerate(trials, start=1):
                eid = f"{run_id}-{test}-{n}"
                executions.append(Execution(execution_id=eid, run_id=run_id, test_id=test, agent_id="x",
                                            agent_variant=variant, trial=n,
                                            turns=[Turn(role="user", text="hi"), Turn(role="agent", text=reply)]))
                verdicts.append(Verdict(run_id=run_id, execution_id=eid, test_id=test, verdict=verdict))  # type: ignore[arg-type]
                if again:
                    rejudged.append(Verdict(run_id=run_id, execution_id=eid, test_id=test, verdict=again))  # type: ignore[arg-type]
        write_records(root, "executions", executions, run_id=run_id)
        write_records(root, "verdicts", verdicts, run_id=run_id)
        write_records(root, "rejudgements", rejudged, run_id=run_id)
    write_records(root, "audit_labels", [AuditLabel(run_id="s", test_id=t, validity="invalid" if t == "e" else "valid")
                                         for t in TESTS], run_id="s")
    return root


def test_pass_k_pass_rate_and_flake_class_per_test(root: Path) -> None:
    rows = ReportQueries(root).rows("test_trials", run_id="f")
    assert [(r["test_id"], r["k"], r["passes"], r["pass_k"], r["pass_rate"], r["flake_class"]) for r in rows] == [
        ("a", 3, 0, False, 0.0, "stable"),
        ("b", 3, 2, False, 2 / 3, "agent-flaky"),
        ("c", 3, 1, False, 1 / 3, "judge-flaky"),
        ("d", 3, 0, False, 0.0, "stable"),
        ("e", 3, 0, False, 0.0, "stable")]
    assert all(r["pass_k"] and r["flake_class"] == "stable" for r in ReportQueries(root).rows("test_trials", run_id="o")
               if r["test_id"] != "d")


def test_the_history_counts_the_suite_and_earlier_run_suite_runs_on_the_original(root: Path) -> None:
    rows = {r["test_id"]: r for r in ReportQueries(root).rows("gate_tests", run_id="f", suite_run_id="s")}
    assert {t: (r["baseline_trials"], r["baseline_passes"], r["suite_verdict"], r["validity"])
            for t, r in rows.items()} == {"a": (4, 4, "pass", "valid"), "b": (4, 4, "pass", "valid"),
                                          "c": (4, 4, "pass", "valid"), "d": (4, 0, "fail", "valid"),
                                          "e": (4, 4, "pass", "invalid")}
    assert {r["agent_variant"] for r in rows.values()} == {"F"}  # the variant f was started against
    # o's own history is the suite run only (f started later)
    assert {r["baseline_trials"] for r in ReportQueries(root).rows("gate_tests", run_id="o", suite_run_id="s")} == {1}


def test_the_fisher_test_by_hand() -> None:
    assert regression_p_value(4, 4, 0, 3) == pytest.approx(1 / 35)
    assert regression_p_value(4, 4, 2, 3) == pytest.approx(3 / 7)
    assert regression_p_value(4, 4, 1, 3) == pytest.approx(1 / 7)
    assert can_reach_alpha(4, 3) and not can_reach_alpha(1, 3) and not can_reach_alpha(1, 1)


@pytest.mark.parametrize(("mode", "counted", "apart"), [
    ("regression", ["a"], {"b": "within its history", "c": "within its history",
                           "d": "already failing in the suite run", "e": "auditor judged the test invalid"}),
    ("fail", ["a", "b", "c", "d"], {"e": "auditor judged the test invalid"}),
    ("flaky", ["b", "c"], {}),
])
def test_the_gate_counts_and_sets_apart(root: Path, mode: str, counted: list[str], apart: dict[str, str]) -> None:
    gate = evaluate_gate(root, "f", "s", mode)
    assert [r["test_id"] for r in gate.counted] == counted
    assert {r["test_id"]: r["reason"] for r in gate.apart if not r["reason"].startswith(apart.get(r["test_id"], "?"))} == {}
    assert sorted(r["test_id"] for r in gate.apart) == sorted(apart)
