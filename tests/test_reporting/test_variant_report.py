"""`adat report` and `adat show` of a `run-suite` run on a faulty variant (the hand-made warehouse's
r3: r1's suite on fault F5, not audited; tests/test_sql/test_variant_runs.py): they describe F5,
not the original agent, and list the tests that went pass -> fail since the suite run."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from adat.reporting.html_report import render_report, report_context
from adat.reporting.show import show_item
from adat.warehouse import build_catalog
from adat.warehouse.queries import ReportQueries
from tests.test_sql import warehouse_fixture as fx
from tests.test_sql.conftest import SQL_DIR
from tests.test_sql.test_variant_runs import write_run_suite_on_fault


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = fx.write_metrics_fixture(tmp_path_factory.mktemp("variant-report") / "data")
    write_run_suite_on_fault(data)
    build_catalog(data, SQL_DIR)
    return data


def test_report_of_a_run_suite_on_a_fault_describes_that_variant(root: Path) -> None:
    context = report_context(ReportQueries(root, SQL_DIR), "r3")
    assert context["variant"] == "F5" and context["suite"] == "r1"
    assert {r["agent_variant"] for r in context["verdicts"]} == {"F5"} and context["verdicts"]
    assert sorted(r["test_id"] for r in context["pass_to_fail"]) == ["p1", "t1"]
    html = render_report(context)
    assert "on the original agent" not in html
    assert "Failing and inconclusive tests on faulty variant F5 (5)" in html
    assert 'id="pass-to-fail"' in html and "Pass → fail since the suite run <code>r1</code> (2)" in html
    for kind in ("plain", "transformed", "all"):  # V/C of a run nobody audited
        assert f'<th>V/C, {kind}</th><td class="n">not audited</td>' in html
    headline = html[html.index('id="headline-verdicts"'):html.index("</table>", html.index('id="headline-verdicts"'))]
    assert "<td>F5</td>" in headline and "no executions" not in headline


def test_report_of_the_suite_run_keeps_the_original_agent(root: Path) -> None:
    context = report_context(ReportQueries(root, SQL_DIR), "r1")
    assert context["variant"] == "original" and context["suite"] is None and context["pass_to_fail"] == []
    html = render_report(context)
    assert "Failing and inconclusive tests on the original agent" in html and 'id="pass-to-fail"' not in html


def test_show_defaults_to_the_variant_the_run_executed(root: Path) -> None:
    console = Console(record=True, width=200)
    shown = show_item(console, root, "p1", run_id="r3")
    text = console.export_text()
    assert shown == {"run_id": "r3", "test_id": "p1", "variant": "F5", "executions": 1}
    assert "execution x-p1 on F5" in text and "no executions" not in text
    assert "suite run r1: pass -> this run: fail" in text
    everything = show_item(Console(record=True), root, "p1", run_id="r3", variant="all")
    assert everything["executions"] == 1
    assert show_item(Console(record=True), root, "p1", run_id="r3", variant="original")["executions"] == 0
    assert show_item(Console(record=True), root, "p1", run_id="r1")["variant"] == "original"
