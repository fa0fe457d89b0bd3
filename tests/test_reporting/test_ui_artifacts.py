"""The Prefect UI's artifact content: tables with the same columns in every row, the night next to
the previous night of the same config, the evaluation's headline metrics."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from adat.records import Run
from adat.reporting import artifacts as a
from adat.warehouse import build_catalog, write_records
from adat.warehouse.queries import ReportQueries
from tests.test_sql.conftest import SQL_DIR
from tests.test_sql.warehouse_fixture import T0

SUMMARY = {
    "run_id": "n2", "statements": 5, "grounded_statements": 4, "tests": {"plain": 3, "transformed": 2},
    "attempts": 6, "not_applicable": 1, "target_errors": 0, "llm_calls": {"offline/heuristic": 40},
    "verdicts": {"plain": {"pass": 3}, "transformed": {"fail": 1, "inconclusive": 1}},
    "offline": True, "status": "completed", "stopped_in": "", "agent_variant": "original",
    "attempt_errors": 0, "failed_llm_calls": {}, "top_instructions": [], "cache_hits": 0,
    "tables": "/d/runs", "catalog": "/d/adat.duckdb",
}
METRICS = {
    "validity_rate": [{"run_id": "n2", "kind": "plain", "counted": 3, "audited": 3, "valid": 3, "validity_rate": 1.0},
                      {"run_id": "n2", "kind": "all", "counted": 5, "audited": 5, "valid": 4, "validity_rate": 0.8}],
    "false_alarm_rate": [{"run_id": "n2", "agent_variant": "original", "fp": 1, "tn": 3, "false_alarm_rate": 0.25},
                         {"run_id": "n2", "agent_variant": "F1", "fp": 0, "tn": 2, "false_alarm_rate": 0.0}],
    "mutation_score": [{"run_id": "n2", "kind": "fault", "variants": 3, "activated": 2, "killed": 1,
                        "mutation_score": 0.5, "killed_variants": ["F1"], "survivors": ["F2"],
                        "not_activated": ["F3"]}],
    "seeded_fault_detection": [{"run_id": "n2", "seeded": 3, "detected": 1, "detection_rate": 1 / 3, "activated": 2,
                                "activation_rate": 2 / 3, "detected_faults": ["F1"], "unreached": ["F3"],
                                "reached_undetected": ["F2"]}],
    "fault_detection": [{"run_id": "n2", "fault": "F1", "base_run": "n2", "activated": True, "tests_run": 4, "pass_to_fail": 2,
                         "detecting_tests": 2, "detected": True, "evidence": "audited: TP attributed to the fault"},
                        {"run_id": "n2", "fault": "F2", "base_run": "n2", "activated": True, "tests_run": 4, "pass_to_fail": 1,
                         "detecting_tests": 0, "detected": False, "evidence": "audited: TP attributed to the fault"}],
}
#: a run-suite run on fault F1 that nobody audited (the CI case): sql/metrics as they answer for it
UNAUDITED = {
    "validity_rate": [{"run_id": "ci", "kind": "all", "counted": 5, "audited": 0, "valid": None, "validity_rate": None}],
    "false_alarm_rate": [], "accuracy": [], "mutation_score": [], "seeded_fault_detection": [],
    "fault_detection": [{"run_id": "ci", "fault": "F1", "base_run": "n2", "activated": None, "tests_run": 5, "pass_to_fail": 3,
                         "detecting_tests": None, "detected": True, "evidence": "pass -> fail, not audited"}],
}


def test_every_table_row_has_the_same_columns() -> None:
    assert a.uniform_rows([{"kind": "plain", "pass": 3}, {"kind": "transformed", "fail": 1}], fill=0) == [
        {"kind": "plain", "pass": 3, "fail": 0}, {"kind": "transformed", "pass": 0, "fail": 1}]
    assert a.verdict_rows(SUMMARY) == [
        {"kind": "plain", "pass": 3, "fail": 0, "inconclusive": 0, "unjudged": 0},
        {"kind": "transformed", "pass": 0, "fail": 1, "inconclusive": 1, "unjudged": 0}]


def test_evaluation_rows_name_vc_far_and_the_mutation_score() -> None:
    rows = {r["metric"]: r for r in a.evaluation_rows(METRICS, "n2")}
    assert rows["V/C"]["value"] == 0.8 and rows["V/C"]["detail"] == "4 valid of 5 counted"
    assert rows["FAR"]["value"] == 0.25  # the original agent's, not a fault's
    assert rows["mutation score"]["value"] == 0.5 and rows["mutation score"]["detail"] == (
        "1 killed / 2 activated of 3 faults: F1; not activated: F3")
    # seeded faults: detected / seeded is the headline, with activated / seeded and the unreached named
    assert rows["detected / seeded"]["value"] == round(1 / 3, 4) and rows["detected / seeded"]["detail"] == (
        "1 detected / 3 seeded; activated (reached) 2 / 3; unreached: F3")
    assert list(rows).index("detected / seeded") < list(rows).index("mutation score")
    assert rows["accuracy"]["value"] is None and rows["accuracy"]["detail"] == "no rows for this run"
    assert rows["V/C"]["query"] == "adat sql validity_rate --run n2"
    assert [r["fault"] for r in a.fault_rows(METRICS)] == ["F1", "F2"]
    text = a.evaluation_markdown(METRICS, "n2")
    assert "| V/C | 0.800 | 4 valid of 5 counted |" in text and "| `F2` | yes | 4 | 1 | 0 | no |" in text
    assert "| detected / seeded | 0.333 | 1 detected / 3 seeded; activated (reached) 2 / 3; unreached: F3 |" in text


def test_an_unaudited_run_is_not_audited_never_zero() -> None:
    rows = {r["metric"]: r for r in a.evaluation_rows(UNAUDITED, "ci")}
    assert all(r["value"] is None and r["detail"].startswith("not audited: 5 tests, none audited")
               for r in rows.values()), rows
    text = a.evaluation_markdown(UNAUDITED, "ci")
    assert "| V/C | not audited |" in text and "0.000" not in text
    assert "| `F1` | not measured | 5 | 3 | not audited | yes (pass → fail) |" in text
    assert a.fault_rows(UNAUDITED)[0]["detecting_tests"] is None


def test_headline_puts_each_figure_next_to_the_previous_nights() -> None:
    now = a.headline_figures(SUMMARY, METRICS)
    before = a.headline_figures({**SUMMARY, "run_id": "n1", "statements": 7, "verdicts": {"plain": {"pass": 2}}})
    rows = {r["measure"]: r for r in a.headline_rows(now, before)}
    assert rows["statements"] == {"measure": "statements", "this night": 5, "previous night": 7, "change": -2}
    assert rows["plain tests pass"]["change"] == 1
    assert rows["V/C"] == {"measure": "V/C", "this night": 0.8, "previous night": None, "change": None}
    assert list(now) == list(before)  # the same measures every night
    first = a.headline_rows(now, None)
    assert all(r["previous night"] is None for r in first)


def test_night_markdown_has_the_comparison_the_diff_and_the_links() -> None:
    rows = a.headline_rows(a.headline_figures(SUMMARY, METRICS), None)
    text = a.night_markdown(SUMMARY, rows, "n1", "# adat diff `n1` → `n2`\n\n| change | count |", "/d/r.html",
                            ["adat-nightly-headline", "adat-verdicts"], "http://127.0.0.1:4200/runs/flow-run/x")
    assert text.startswith("# adat nightly `n2`") and "offline/heuristic" in text
    assert "Previous night of the same config: `n1`" in text and "| V/C | 0.800 | — | — |" in text
    assert "## adat diff `n1` → `n2`" in text  # its heading one level down
    assert "(file:///d/r.html)" in text and "`adat-verdicts`" in text
    assert "[this flow run](http://127.0.0.1:4200/runs/flow-run/x)" in text
    assert "First night of this config" in a.night_markdown(SUMMARY, rows, None, None, None, [])


def test_previous_same_config_skips_runs_with_another_config(tmp_path: Path) -> None:
    root = tmp_path / "data"

    def run(run_id: str, hours: int, n: int, flow: str = "pipeline") -> Run:
        config = json.dumps({"data_dir": f"/x/{run_id}", "generation": {"n": n}, "run_id": run_id}, sort_keys=True)
        return Run(run_id=run_id, flow=flow, started_at=T0 + timedelta(hours=hours), status="completed",
                   config_json=config)

    for r in (run("a", 0, 4), run("b", 1, 8), run("c", 2, 4, flow="run_suite"), run("d", 3, 4)):
        write_records(root, "runs", [r], run_id=r.run_id)
    build_catalog(root, SQL_DIR)
    queries = ReportQueries(root, SQL_DIR)
    assert [r["run_id"] for r in queries.rows("previous_same_config", run_id="d")] == ["a"]  # not b (n), not c (flow)
    assert queries.rows("previous_same_config", run_id="a") == []
    assert [r["run_id"] for r in queries.rows("previous_run", run_id="d")] == ["b"]


def test_an_offline_suites_evaluation_says_so(tmp_path: Path) -> None:
    from adat.run_figures import is_offline
    from tests.test_sql import warehouse_fixture as fx

    assert "offline/heuristic" in a.evaluation_markdown(METRICS, "n2", offline=True)
    assert "offline/heuristic" not in a.evaluation_markdown(METRICS, "n2")
    root = fx.write_metrics_fixture(tmp_path / "data")
    assert is_offline(root, "r1") and not is_offline(root, "r2")  # r1's planner call is offline/heuristic
