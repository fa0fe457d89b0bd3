"""End to end: the `pipeline` flow under a real (ephemeral) Prefect API, reference agent,
offline/heuristic provider, real Parquet and DuckDB — then the warehouse must be consistent,
and a second run with the same inputs must make zero provider calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.cli.flow_loader import load_flow
from adat.config import adat_home
from adat.warehouse import read_records, run_query
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pipeline_run(prefect_harness, tmp_path_factory):
    cfg = small_demo_config(tmp_path_factory.mktemp("pipeline") / "data", sessions=8, n=8, run_id="e2e-1")
    calls = {"n": 0}
    from adat_offline.provider import OfflineHeuristicProvider

    original = OfflineHeuristicProvider.complete

    def counting(self, request):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        return original(self, request)

    mp = pytest.MonkeyPatch()
    mp.setattr(OfflineHeuristicProvider, "complete", counting)
    pipeline = load_flow("pipeline")
    run_id = pipeline(config=cfg)
    first = calls["n"]
    run_id_again = pipeline(config=cfg)
    second = calls["n"] - first
    mp.undo()
    return cfg, run_id, run_id_again, first, second


def test_pipeline_writes_every_stage(pipeline_run):
    cfg, run_id, _, first_calls, _ = pipeline_run
    root = cfg.data_path()
    assert run_id == "e2e-1"
    assert first_calls > 0
    traces = read_records(root, "traces", run_id=run_id)
    statements = read_records(root, "statements", run_id=run_id)
    tests = read_records(root, "tests", run_id=run_id)
    assert len(traces) == 8
    assert statements and any(s.grounded for s in statements)
    assert {t.kind for t in tests} == {"plain", "transformed"}
    assert read_records(root, "attempts", run_id=run_id)
    calls = read_records(root, "llm_calls", run_id=run_id)
    assert calls and {f"{c.provider}/{c.model}" for c in calls} == {"offline/heuristic"}
    runs = read_records(root, "runs", run_id=run_id)
    assert runs[-1].status == "completed"


def test_warehouse_is_consistent(pipeline_run):
    cfg, run_id, _, _, _ = pipeline_run
    root = cfg.data_path()
    statements = {s.statement_id for s in read_records(root, "statements", run_id=run_id)}
    tests = read_records(root, "tests", run_id=run_id)
    test_ids = {t.test_id for t in tests}
    executions = read_records(root, "executions", run_id=run_id)
    verdicts = read_records(root, "verdicts", run_id=run_id)
    attempts = read_records(root, "attempts", run_id=run_id)
    # every test's statement exists
    assert all(t.statement_id in statements for t in tests)
    # every attempt that wrote a test points at it (and only applicable attempts did)
    for a in attempts:
        assert (a.test_id is not None) == a.applicable
        if a.test_id is not None:
            assert a.test_id in test_ids
    # every execution has exactly one verdict, every test was executed
    per_execution: dict[str, int] = {}
    for v in verdicts:
        per_execution[v.execution_id] = per_execution.get(v.execution_id, 0) + 1
    assert {e.execution_id for e in executions} == set(per_execution)
    assert set(per_execution.values()) == {1}
    assert {e.test_id for e in executions} == test_ids


def test_sql_checks_find_no_violations(pipeline_run):
    cfg, run_id, _, _, _ = pipeline_run
    root = cfg.data_path()
    db = root / "adat.duckdb"
    assert db.is_file()
    checks = sorted((adat_home() / "sql" / "checks").glob("*.sql"))
    assert checks, "sql/checks is empty"
    for check in checks:
        params = {"run_id": run_id} if "$run_id" in check.read_text() else {}
        rows = run_query(db, check, params)
        assert rows.num_rows == 0, f"{check.name}: {rows.to_pylist()[:3]}"


def test_rerun_with_same_inputs_makes_zero_provider_calls(pipeline_run):
    cfg, run_id, run_id_again, _, second_calls = pipeline_run
    assert run_id_again == run_id
    assert second_calls == 0


def test_parquet_layout(pipeline_run):
    cfg, run_id, _, _, _ = pipeline_run
    from adat.warehouse.layout import live_parts  # superseded parts wait out their retention on disk

    parts = live_parts(Path(cfg.data_path(), "runs", "tests", f"run_id={run_id}"))
    # one part per owner: plain generation's, and the transformation's (compacted after the phase)
    from adat.warehouse.parquet import part_owner

    assert sorted(part_owner(p) for p in parts) == ["plain", "transformation"]
