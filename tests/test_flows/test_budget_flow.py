"""Budgets end to end: a pipeline run with a call budget and one with a dollar budget stop at it,
record ``budget_exhausted`` with the phase, and keep every table written so far."""

from __future__ import annotations

import duckdb
import pytest

from adat.cli.flow_loader import load_flow
from adat.config import BudgetConfig, LLMSettings
from adat.records import LLMCall
from adat.run_figures import run_summary, summary_markdown
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.slow

PRICE = {"offline/heuristic": (1.0, 1.0)}  # USD per million tokens, so offline calls cost something


def _run(tmp_path, name: str, budget: dict, **llm: object):
    cfg = small_demo_config(tmp_path / name, sessions=6, n=6, run_id=f"budget-{name}",
                            budget=BudgetConfig.model_validate(budget),
                            llm=LLMSettings.model_validate({"prices_usd_per_mtok": PRICE, **llm}))
    run_id = load_flow("pipeline")(config=cfg)
    return cfg, run_id


def test_call_budget_of_a_phase_stops_there_and_keeps_the_tables(prefect_harness, tmp_path):
    cfg, run_id = _run(tmp_path, "calls", {"phases": {"transformation": {"max_calls": 5}}})
    root = cfg.data_path()
    run = read_records(root, "runs", run_id=run_id)[-1]
    assert run.status == "budget_exhausted"
    assert run.stopped_in.startswith("transformation (phase max_calls 5 of 5)")
    calls = [c for c in read_records(root, "llm_calls", run_id=run_id) if isinstance(c, LLMCall)]
    made = [c for c in calls if c.phase == "transformation" and not c.cache_hit]
    assert len(made) == 5  # exactly the budget: a call over it is never made
    # everything the finished stages wrote is still there and readable, in Parquet and in DuckDB
    assert len(read_records(root, "traces", run_id=run_id)) == 6
    assert read_records(root, "statements", run_id=run_id)
    assert any(t.kind == "plain" for t in read_records(root, "tests", run_id=run_id))
    assert read_records(root, "verdicts", run_id=run_id)
    with duckdb.connect(str(root / "adat.duckdb"), read_only=True) as con:
        status = con.execute("select status from stg_runs where run_id = ?", [run_id]).fetchall()
    assert status == [("budget_exhausted",)]
    summary = run_summary(root, run_id)
    assert summary["status"] == "budget_exhausted"
    assert "Budget exhausted** in transformation" in summary_markdown(summary)


def test_dollar_budget_of_the_run_stops_at_it(prefect_harness, tmp_path):
    # What the stages before transformation cost (offline answers are deterministic for a seed):
    # a run budget a few transformation calls above that stops in transformation.
    free, free_id = _run(tmp_path, "free", {"phases": {"transformation": {"max_calls": 3}}})
    rows = [c for c in read_records(free.data_path(), "llm_calls", run_id=free_id) if isinstance(c, LLMCall)]
    before = sum(c.cost_usd for c in rows if c.phase != "transformation")
    per_call = max(c.cost_usd for c in rows if c.phase == "transformation")
    limit = before + 2.5 * per_call
    cfg, run_id = _run(tmp_path, "usd", {"max_usd": limit}, concurrency=1)
    root = cfg.data_path()
    run = read_records(root, "runs", run_id=run_id)[-1]
    assert run.status == "budget_exhausted"
    assert run.stopped_in.startswith("transformation (run max_usd $")
    calls = [c for c in read_records(root, "llm_calls", run_id=run_id) if isinstance(c, LLMCall)]
    spent = sum(c.cost_usd for c in calls)
    assert limit <= spent < limit + per_call + 1e-9  # it stops at the first call over the limit
    assert read_records(root, "traces", run_id=run_id) and read_records(root, "verdicts", run_id=run_id)
