"""`adat demo --evaluate`, then a plain `adat demo` re-run: the re-run's summary is the first run's.

Evaluation writes the fault variants' executions, verdicts and LLM calls into the suite run's
partition; none of them are the run's own, so none may appear in its summary (issue #10)."""

from __future__ import annotations

import pytest

from adat.cli.flow_loader import load_flow
from adat.run_figures import run_summary, summary_markdown
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.slow

FAULTS = ["cancel_any_reason", "transfer_in_scope"]


def test_rerun_summary_after_evaluate_matches_the_first_run(prefect_harness, tmp_path):
    cfg = small_demo_config(tmp_path / "data", sessions=6, n=6, run_id="rerun-summary")
    cfg = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"faults": FAULTS})})
    pipeline = load_flow("pipeline")
    run_id = pipeline(config=cfg)
    first = run_summary(cfg.data_path(), run_id)
    load_flow("evaluate")(config=cfg, suite_run_id=run_id)
    variants = {e.agent_variant for e in read_records(cfg.data_path(), "executions", run_id=run_id)}
    assert variants == {"original", *FAULTS}  # the evaluation did add the fault variants' executions
    assert pipeline(config=cfg) == run_id
    again = run_summary(cfg.data_path(), run_id)
    # cache hits of the re-run are the only difference a re-run may show
    assert {k: v for k, v in again.items() if k != "cache_hits"} == {k: v for k, v in first.items() if k != "cache_hits"}
    assert summary_markdown(again) == summary_markdown(first)
