"""The run summary's counts come from SQL over the staging views: distinct ids, unjudged
executions apart from inconclusive ones, failed LLM calls by role, target errors, the variant."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from adat.config import RunConfig
from adat.records import Execution, Verdict
from adat.run_figures import print_run_summary, run_summary
from adat.warehouse import write_records
from tests.test_sql import warehouse_fixture as fx
from tests.test_sql.conftest import SQL_DIR


def test_summary_counts_distinct_ids_and_shows_errors(tmp_path: Path) -> None:
    root = fx.write_metrics_fixture(tmp_path / "data")
    before = run_summary(root, "r1", SQL_DIR)
    # a second copy of a transformed test (a resumed stage) and an execution the judge never saw
    tests = [t for t in fx.r1_tables()["tests"] if t.test_id == "t1"]
    write_records(root, "tests", tests, run_id="r1")
    write_records(root, "executions", [Execution(execution_id="e-err", run_id="r1", test_id="p1", agent_id="a",
                                                 ended_by="error", error="HTTP 502")], run_id="r1")
    write_records(root, "verdicts", [Verdict(run_id="r1", execution_id="e-err", test_id="p1",
                                             verdict="inconclusive", judged=False)], run_id="r1")
    s = run_summary(root, "r1", SQL_DIR)
    assert s["tests"] == before["tests"] == {"plain": 3, "transformed": 4, "all": 7}
    assert s["verdicts"]["plain"]["unjudged"] == 1
    assert s["verdicts"]["plain"].get("inconclusive", 0) == before["verdicts"]["plain"].get("inconclusive", 0)
    assert s["target_errors"] == 1 and s["failed_llm_calls"] == {"judge": 1}
    assert s["agent_variant"] == "original" and s["attempts"] == 7 and s["not_applicable"] == 2

    out = io.StringIO()
    print_run_summary(Console(file=out, width=200), RunConfig(data_dir=str(root)), "r1")
    text = out.getvalue()
    assert "target 1; failed LLM calls: judge 1" in text
    assert "unjudged 1" in text
