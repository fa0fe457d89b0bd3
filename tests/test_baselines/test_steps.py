"""Baseline steps on a temporary warehouse: copying a source run, frozen ablation priors, selector names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adat.baselines.baseline_steps import (
    ablation_priors_step,
    check_selectors,
    selector_names,
)
from adat.config import SELECTOR_NAMES, RunConfig
from adat.engine.stage_runner import run_stage
from adat.errors import UserError
from adat.records import Attempt, Instruction, RuleEvent, Run, Statement, TestCase, Trace, Turn
from adat.warehouse.parquet import read_records, write_records

SRC = "src-run"


@pytest.fixture
def cfg(tmp_path: Path) -> RunConfig:
    return RunConfig(data_dir=str(tmp_path))


def seed_source(root: Path) -> None:
    trace = Trace(trace_id="tr-1", run_id=SRC, kind="discovery", session_id="s1",
                  turns=[Turn(role="user", text="hi"), Turn(role="agent", text="hello")])
    write_records(root, "traces", [trace], run_id=SRC)
    write_records(root, "rule_events", [
        RuleEvent(run_id=SRC, session_id="s1", rule_id="auth", side="denied", turn=0),
        RuleEvent(run_id=SRC, session_id="exec-9", rule_id="cancel", side="allowed", turn=1)], run_id=SRC)
    statement = Statement(statement_id="st-1", run_id=SRC, text="t", condition="c", behavior="b",
                          supporting_trace_id="tr-1", supporting_turn=1, supporting_reply="hello")
    write_records(root, "statements", [statement], run_id=SRC)  # extraction's table; grounding's ranks it
    write_records(root, "ranked_statements", [statement.model_copy(update={"rank": 1, "confidence": 0.9})], run_id=SRC)
    write_records(root, "tests", [
        TestCase(test_id=f"te-{kind}", run_id=SRC, kind=kind, goal="g", step_hints=["h"])  # type: ignore[arg-type]
        for kind in ("plain", "transformed")], run_id=SRC)
    write_records(root, "instructions", [Instruction(
        instruction_id="k1", run_id=SRC, title="t", text="x", factor="value", applicability="a",
        prior_applicability=0.5)], run_id=SRC)


def test_copying_traces_for_a_baseline(cfg: RunConfig) -> None:
    root = cfg.data_path()
    seed_source(root)
    result = run_stage("copy-source-run", cfg, "new-run", source_run_id=SRC, scope="traces")
    assert result.tables == {"traces": 1, "rule_events": 1}
    traces = read_records(root, "traces", run_id="new-run")
    assert [(t.trace_id, t.run_id) for t in traces] == [("tr-1", "new-run")]  # ids kept, run re-stamped
    assert [e.rule_id for e in read_records(root, "rule_events", run_id="new-run")] == ["auth"]
    assert read_records(root, "statements", run_id="new-run") == []


def test_copying_suite_inputs_for_the_ablation(cfg: RunConfig) -> None:
    root = cfg.data_path()
    seed_source(root)
    run_stage("copy-source-run", cfg, "abl", source_run_id=SRC, scope="suite_inputs")
    assert [t.test_id for t in read_records(root, "tests", run_id="abl")] == ["te-plain"]
    assert [s.statement_id for s in read_records(root, "statements", run_id="abl")] == ["st-1"]
    assert [s.rank for s in read_records(root, "ranked_statements", run_id="abl")] == [1]
    assert [i.instruction_id for i in read_records(root, "instructions", run_id="abl")] == ["k1"]


def test_a_source_without_traces_or_statements_is_a_user_error(cfg: RunConfig) -> None:
    with pytest.raises(UserError, match="no discovery traces"):
        run_stage("copy-source-run", cfg, "new-run", source_run_id="missing", scope="traces")
    root = cfg.data_path()
    seed_source(root)
    write_records(root, "ranked_statements", [], run_id=SRC, replace=True)
    with pytest.raises(UserError, match="no grounded statements"):
        run_stage("copy-source-run", cfg, "abl", source_run_id=SRC, scope="suite_inputs")


def test_ablation_priors_come_from_runs_before_the_source(cfg: RunConfig) -> None:
    root = cfg.data_path()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    for i, run_id in enumerate(("old", SRC, "later")):
        write_records(root, "runs", [Run(run_id=run_id, flow="pipeline", started_at=t0 + timedelta(hours=i))],
                      run_id=run_id)
        write_records(root, "attempts", [Attempt(run_id=run_id, attempt_no=1, statement_id="s",
                                                 instruction_id=f"k-{run_id}", applicable=True, selector="adat2",
                                                 generator=str(cfg.models.generator))],
                      run_id=run_id)
    result = ablation_priors_step(cfg, SRC)
    assert set(result.data["priors"]) == {"k-old"}
    assert result.counts["history_runs"] == 1
    with pytest.raises(UserError, match="no run"):
        ablation_priors_step(cfg, "nope")


def test_selector_names_come_from_the_config_type() -> None:
    assert selector_names() == list(SELECTOR_NAMES)
    assert check_selectors(["uniform", "adat2", "uniform"]) == ["uniform", "adat2"]
    with pytest.raises(UserError, match="unknown selector"):
        check_selectors(["adat2", "bogus"])
    with pytest.raises(UserError, match="no selector"):
        check_selectors([])
