"""A flow that fails after its run started marks the run `failed` with the error's line (issue 8).

Grounding raises an error that is not retried, after discovery and extraction have written their
tables: the flow fails, and the run record, ``stg_runs`` and the run summary say ``failed`` with
the error's one line instead of leaving the run ``running``; what discovery wrote is kept.
"""

from __future__ import annotations

import io

import duckdb
import pytest
from rich.console import Console

from adat.cli.flow_loader import load_flow
from adat.engine import stage_runner as steps
from adat.run_figures import print_run_summary
from adat.stages import statements
from adat.warehouse import read_records
from adat.warehouse.catalog import catalog_path
from tests.support.demo_config import small_demo_config


def _explode(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("grounding exploded\nsecond line of the message")


@pytest.mark.slow
def test_a_flow_failing_mid_run_marks_the_run_failed(prefect_harness, tmp_path, monkeypatch):
    cfg = small_demo_config(tmp_path / "data", sessions=2, n=2, run_id="breaks")
    monkeypatch.setattr(statements, "grounding_step", _explode)
    with pytest.raises(RuntimeError, match="grounding exploded"):
        load_flow("pipeline")(config=cfg)
    root = cfg.data_path()
    run = read_records(root, "runs", run_id="breaks")[-1]
    assert (run.status, run.error) == ("failed", "RuntimeError: grounding exploded")
    assert run.finished_at is not None
    assert read_records(root, "traces", run_id="breaks")  # discovery's work is kept
    with duckdb.connect(str(catalog_path(root)), read_only=True) as con:
        rows = con.execute("select status, error from stg_runs where run_id = 'breaks'").fetchall()
    assert rows == [("failed", "RuntimeError: grounding exploded")]
    out = io.StringIO()
    summary = print_run_summary(Console(file=out, width=200), cfg, "breaks")
    assert summary["status"] == "failed"
    assert "Failed: RuntimeError: grounding exploded" in out.getvalue()


@pytest.mark.slow
def test_a_completed_run_is_not_marked_failed(tmp_path):
    cfg = small_demo_config(tmp_path / "data", sessions=2, n=2, run_id="done")
    steps.start_run(cfg, "done", "pipeline")
    steps.finish_run(cfg, "done", "pipeline")
    assert not steps.fail_run(cfg, "done", "pipeline", "RuntimeError: late")
    assert read_records(cfg.data_path(), "runs", run_id="done")[-1].status == "completed"
