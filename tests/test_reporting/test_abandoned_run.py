"""An abandoned run (its process died; docs/failures.md) is shown as such by `adat show`, the report
and the run summary."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from adat.engine.context import end_run_row
from adat.records import Run
from adat.reporting.html_report import render_report, report_context
from adat.reporting.show import show_item
from adat.run_figures import status_notes
from adat.warehouse import build_catalog, read_records, write_records
from adat.warehouse.queries import ReportQueries
from tests.test_sql import warehouse_fixture as fx
from tests.test_sql.conftest import SQL_DIR

GONE = "the process writing it (pid 4242) is gone"


def test_an_abandoned_run_is_shown_as_abandoned(tmp_path: Path) -> None:
    root = fx.write_metrics_fixture(tmp_path / "data")
    run = read_records(root, "runs", run_id="r1")[-1]
    assert isinstance(run, Run)
    write_records(root, "runs", [run.model_copy(update={"status": "running", "finished_at": None})],
                  run_id="r1", replace=True)
    assert end_run_row(root, "r1", "abandoned", GONE) is not None
    assert end_run_row(root, "r1", "failed", "interrupted") is None, "an ended run was rewritten"
    build_catalog(root, SQL_DIR)
    console = Console(record=True, width=200)
    show_item(console, root, "p1", run_id="r1")
    assert "run r1 is abandoned" in console.export_text()
    assert "status <b>abandoned</b>" in render_report(report_context(ReportQueries(root, SQL_DIR), "r1"))
    assert status_notes({"status": "abandoned", "error": GONE})[0][:2] == (
        "Abandoned", f": {GONE}. What the finished stages wrote is kept; re-run it with the same run_id to resume.")
