"""End to end: the `pipeline` flow then the `evaluate` flow under a real (ephemeral) Prefect API,
reference agent, offline/heuristic provider, real Parquet and DuckDB; the report's numbers come
from sql/metrics, and a second evaluation of the unchanged suite is served from the task cache."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from adat.cli.flow_loader import load_flow
from adat.evaluation.evaluation_figures import print_evaluation
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config
from tests.support.pre_move import PRE_MOVE_SQL, move_mismatch

pytestmark = pytest.mark.slow

FAULTS = ["cancel_any_reason", "no_write_confirmation", "transfer_in_scope"]


def _parts(root: Path, table: str, run_id: str) -> set[str]:
    from adat.warehouse.layout import live_parts  # superseded parts wait out their retention on disk

    return {p.name for p in live_parts(root / "runs" / table / f"run_id={run_id}")}


@pytest.fixture(scope="module")
def evaluated(prefect_harness, tmp_path_factory):
    cfg = small_demo_config(tmp_path_factory.mktemp("evaluate") / "data", sessions=8, n=8, run_id="e2e-eval")
    cfg = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"faults": FAULTS})})
    run_id = load_flow("pipeline")(config=cfg)
    evaluate = load_flow("evaluate")
    result = evaluate(config=cfg, suite_run_id=run_id)
    root = cfg.data_path()
    before = {t: _parts(root, t, run_id) for t in ("executions", "audit_labels", "execution_labels")}
    again = evaluate(config=cfg, suite_run_id=run_id)
    after = {t: _parts(root, t, run_id) for t in before}
    return cfg, run_id, result, again, before, after


def test_every_test_is_audited_and_valid_executions_are_labelled(evaluated):
    cfg, run_id, result, *_ = evaluated
    root = cfg.data_path()
    assert result.run_id == run_id and result.data["faults"] == FAULTS
    tests = {t.test_id for t in read_records(root, "tests", run_id=run_id)}
    audit = {a.test_id: a for a in read_records(root, "audit_labels", run_id=run_id)}
    assert set(audit) == tests
    valid = {t for t, a in audit.items() if a.validity != "invalid"}
    assert valid and all(audit[t].mappings for t in valid)
    groupings = read_records(root, "groupings", run_id=run_id)
    assert {g.grouping_no for g in groupings} == {1, 2, 3}
    labels = read_records(root, "execution_labels", run_id=run_id)
    assert {e.agent_variant for e in labels} == {"original", *FAULTS}
    assert {e.test_id for e in labels} == valid
    executions = read_records(root, "executions", run_id=run_id)
    assert {e.agent_variant for e in executions} == {"original", *FAULTS}


def test_report_prints_the_sql_metrics(evaluated):
    cfg, run_id, result, *_ = evaluated
    out = io.StringIO()
    metrics = print_evaluation(Console(file=out, width=200), cfg, result)
    text = out.getvalue()
    for heading in ("V/C", "V_E/C", "U —", "P —", "Execution labels", "FAR", "Accuracy", "detection per fault",
                    "Mutation score"):
        assert heading in text, heading
    assert sorted(r["fault"] for r in metrics["fault_detection"] or []) == FAULTS
    (score,) = metrics["mutation_score"] or []
    assert score["kind"] == "fault" and score["variants"] == len(FAULTS)
    assert score["activated"] + len(score["not_activated"]) == len(FAULTS)
    assert score["mutation_score"] == score["killed"] / score["activated"]


def test_moving_seeded_faults_into_mutation_testing_left_the_score_unchanged(evaluated):
    """Issue 9: the pre-move score (faults detected / faults run, no activation) and mutation
    testing's score (killed / activated) kill the same faults by the same rule; they may differ only
    where a fault was not activated, and no fault is detected without being activated."""
    cfg, run_id, *_ = evaluated
    root = cfg.data_path()
    from adat.config import adat_home
    from adat.warehouse import build_catalog, catalog_path, run_query

    build_catalog(root, adat_home() / "sql")
    (old,) = run_query(catalog_path(root), PRE_MOVE_SQL, {"run_id": run_id}).to_pylist()
    (new,) = run_query(catalog_path(root), adat_home() / "sql" / "metrics" / "mutation_score.sql",
                       {"run_id": run_id, "faults": None}).to_pylist()
    assert new["variants"] == len(FAULTS)
    assert move_mismatch(old, new) is None


def test_second_evaluation_is_served_from_the_cache(evaluated):
    _, run_id, result, again, before, after = evaluated
    assert again.run_id == run_id and again.counts == result.counts
    assert after == before  # no task rewrote a table


def test_regress_flow_adds_a_fault_to_the_audited_suite(evaluated):
    # Runs last in this module: it adds a variant to the shared run.
    cfg, run_id, *_ = evaluated
    result = load_flow("regress")(config=cfg, suite_run_id=run_id, faults=["refund_any_method"])
    assert result.data["faults"] == ["refund_any_method"] and result.counts["tests_run"] > 0
    labels = read_records(cfg.data_path(), "execution_labels", run_id=run_id)
    assert {e.agent_variant for e in labels} == {"original", *FAULTS, "refund_any_method"}
    # The report of a regression names only the faults asked for, though the run holds four.
    metrics = print_evaluation(Console(file=io.StringIO(), width=200), cfg, result)
    assert [r["fault"] for r in metrics["fault_detection"] or []] == ["refund_any_method"]
    (score,) = metrics["mutation_score"] or []
    assert score["variants"] == 1
    assert {r["agent_variant"] for r in metrics["false_alarm_rate"] or []} == {"original", "refund_any_method"}
