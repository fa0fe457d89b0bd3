"""The evaluation steps on a small hand-built suite in a real warehouse (Parquet + DuckDB), no
Prefect: audit, groupings, labels, regression on two seeded faults, and the SQL report."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from adat.config import EvaluationConfig, RunConfig
from adat.engine.context import RunContext
from adat.engine.stage_runner import run_stage
from adat.evaluation import evaluation_steps as steps
from adat.evaluation.evaluation_figures import print_evaluation
from adat.warehouse import read_records
from tests.test_evaluation.conftest import (
    ACTS,
    ASKS_CONFIRMATION,
    BAD_REASON,
    BY_MISTAKE,
    CHLOE,
    REFUSES,
    RUN,
    make_test,
)

FAULTS = ["cancel_any_reason", "no_write_confirmation"]


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory) -> tuple[RunConfig, dict[str, dict[str, float]]]:
    root = tmp_path_factory.mktemp("eval") / "data"
    cfg = RunConfig(data_dir=str(root), run_id=RUN, evaluation=EvaluationConfig(faults=FAULTS))
    tests = [
        make_test("t-confirm", [CHLOE, BY_MISTAKE], success=[ASKS_CONFIRMATION], failure=[ACTS], expected="allowed"),
        make_test("t-reason", [CHLOE, BAD_REASON], success=[REFUSES], failure=[ACTS, ASKS_CONFIRMATION]),
        make_test("t-chat", ["Hello there!"]),
    ]
    RunContext(cfg, RUN).write("tests", tests)
    run_stage("execution", cfg, RUN, kind="all")  # original executions, judged by offline/heuristic
    counts = {"audit": run_stage("audit", cfg, RUN).counts,
              "groupings": {k: float(v) for k, v in run_stage("groupings", cfg, RUN).tables.items()},
              "original": run_stage("execution-labels", cfg, RUN).counts}
    for fault in steps.evaluation_faults(cfg):
        counts[fault] = run_stage("regression", cfg, RUN, fault=fault).counts
    run_stage("regression", cfg, RUN, fault=FAULTS[0])  # re-running a fault replaces its rows
    steps.catalog_step(cfg, RUN)
    return cfg, counts


def _rows(cfg: RunConfig, table: str) -> list:  # type: ignore[type-arg]
    return read_records(Path(cfg.data_path()), table, run_id=RUN)


def test_audit_labels_and_groupings(evaluated):
    cfg, counts = evaluated
    assert counts["audit"] == {"explicit": 2.0, "invalid": 1.0}
    labels = {a.test_id: a for a in _rows(cfg, "audit_labels")}
    assert labels["t-chat"].validity == "invalid"
    mapped = sum(len(a.mappings) for a in labels.values())
    groupings = _rows(cfg, "groupings")
    assert len(groupings) == 3 * mapped and {g.grouping_no for g in groupings} == {1, 2, 3}
    assert all(g.group_boundary == g.boundary for g in groupings)


def test_labels_per_variant_and_attribution(evaluated):
    cfg, counts = evaluated
    assert counts["original"]["TN"] == 2.0
    labels = {(e.test_id, e.agent_variant): e for e in _rows(cfg, "execution_labels")}
    assert len(labels) == 2 * 3  # two valid tests on the original and on each fault; none for t-chat
    assert labels[("t-reason", "cancel_any_reason")].label == "TP"
    assert labels[("t-reason", "cancel_any_reason")].attributed_fault == "cancel_any_reason"
    assert labels[("t-confirm", "no_write_confirmation")].label == "TP"
    assert labels[("t-confirm", "no_write_confirmation")].attributed_fault == "no_write_confirmation"
    assert labels[("t-confirm", "cancel_any_reason")].label == "TN"
    assert labels[("t-confirm", "cancel_any_reason")].attributed_fault is None
    executions = _rows(cfg, "executions")
    assert len(executions) == 3 + 2 * 2  # no duplicates after re-running a fault


def test_mapped_selection_follows_the_paper(evaluated):
    from adat.evaluation.regression import regression_test_ids
    from adat_reference.agent import load_fault

    cfg, _ = evaluated
    labels = _rows(cfg, "audit_labels")
    # both map to cancel_reason_accepted: t-reason on its denied side, t-confirm (a go-ahead) on its allowed side
    assert regression_test_ids(labels, load_fault("cancel_any_reason"), "mapped") == ["t-confirm", "t-reason"]
    assert regression_test_ids(labels, load_fault("cancel_processed_orders"), "mapped") == ["t-confirm"]
    assert regression_test_ids(labels, load_fault("transfer_in_scope"), "mapped") == []
    # asking for a "yes" is no rule evaluation on the original agent, so nothing maps to this fault
    assert regression_test_ids(labels, load_fault("no_write_confirmation"), "mapped") == []
    assert regression_test_ids(labels, load_fault("no_write_confirmation"), "valid") == ["t-confirm", "t-reason"]
    # the run config chooses: the step runs only the mapped tests on the faulty variant
    mapped = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"regression_tests": "mapped"})})
    assert run_stage("regression", mapped, RUN, fault="no_write_confirmation").counts["tests"] == 0.0
    assert run_stage("regression", cfg, RUN, fault="no_write_confirmation").counts["tests"] == 2.0  # as the fixture left it


def test_print_evaluation_reports_the_sql_metrics(evaluated):
    cfg, _ = evaluated
    out = io.StringIO()
    metrics = print_evaluation(Console(file=out, width=200), cfg, {"run_id": RUN})
    text = out.getvalue()
    for heading in ("V/C", "V_E/C", "U —", "P —", "Execution labels", "FAR", "Accuracy", "detection per fault",
                    "Mutation score"):
        assert heading in text
    assert metrics["mutation_score"] == [{"run_id": RUN, "kind": "fault", "variants": 2, "activated": 2,
                                          "activated_intents": 2, "killed": 2,
                                          "mutation_score": 1.0, "activation_rate": 1.0, "killed_variants": FAULTS,
                                          "survivors": [], "not_activated": [], "duplicates": [],
                                          "compile_status": None}]  # seeded faults: no compilation
    # the seeded-fault headline: detected / seeded, activated / seeded, the unreached faults named
    assert metrics["seeded_fault_detection"] == [{
        "run_id": RUN, "seeded": 2, "detected": 2, "detection_rate": 1.0, "activated": 2, "activation_rate": 1.0,
        "detected_faults": FAULTS, "unreached": [], "reached_undetected": []}]
    assert "Seeded faults detected: 2 / 2 (1.000); activated (reached): 2 / 2 (1.000); unreached: none" in text
    validity = {r["kind"]: r["validity_rate"] for r in metrics["validity_rate"] or []}
    assert validity["all"] == pytest.approx(2 / 3)
    assert {r["fault"]: r["detected"] for r in metrics["fault_detection"] or []} == dict.fromkeys(FAULTS, True)


def test_regressions_read_the_original_replays_from_their_file(evaluated):
    from adat.evaluation.replay import load_replays

    cfg, _ = evaluated
    replays = run_stage("original-replays", cfg, RUN)
    path = Path(replays.paths["replays"])
    assert path.is_file() and replays.digest in path.name
    stored = load_replays(str(path))
    assert len(stored) == replays.counts["replays"] == 2  # the two valid tests' messages
    assert all(r.variant == "original" and r.replies for r in stored)

    def labels() -> list[tuple[str, str, str | None]]:
        return sorted((e.execution_id, e.label, e.attributed_fault) for e in _rows(cfg, "execution_labels")
                      if e.agent_variant == FAULTS[0])

    before = labels()
    run_stage("regression", cfg, RUN, fault=FAULTS[0], replays=replays)
    assert labels() == before  # same labels as replaying the original agent on the spot
    assert load_replays(str(path.with_name("gone.pickle"))) == ()  # a deleted file: replay on the spot
    gone = replays.model_copy(update={"paths": {"replays": str(path.with_name("gone.pickle"))}})
    run_stage("regression", cfg, RUN, fault=FAULTS[0], replays=gone)
    assert labels() == before
