"""Seeded-fault figures on every surface (issue #28 item 5): the CLI's evaluation summary, the
markdown of the Prefect artifact and the HTML report each show detected / seeded as the headline,
activated / seeded next to it and the unreached faults by name -- read from
sql/metrics/seeded_fault_detection.sql on the hand-made warehouse of tests/test_sql (run r2: faults
F1..F4; F1 and F4 detected, F3 never activated, F2 activated and undetected; prompt mutants M1..M4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from adat.config import RunConfig
from adat.evaluation.evaluation_figures import evaluation_metrics, print_evaluation
from adat.reporting import artifacts
from adat.reporting.html_report import render_report, report_context
from adat.warehouse.queries import ReportQueries
from tests.test_sql.warehouse_fixture import write_metrics_fixture


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_metrics_fixture(tmp_path_factory.mktemp("fault-figures") / "data")


def test_cli_evaluation_prints_detected_over_seeded_activated_and_unreached(root: Path) -> None:
    console = Console(record=True, width=400)
    metrics = print_evaluation(console, RunConfig(data_dir=str(root)), "r2")
    text = console.export_text()
    assert ("Seeded faults detected: 2 / 4 (0.500); activated (reached): 3 / 4 (0.750); unreached: F3"
            in text)
    assert metrics["seeded_fault_detection"] == [{
        "run_id": "r2", "seeded": 4, "detected": 2, "detection_rate": 0.5, "activated": 3, "activation_rate": 0.75,
        "detected_faults": ["F1", "F4"], "unreached": ["F3"], "reached_undetected": ["F2"]}]
    # the mutation score is still there, named for what it is, below the headline
    assert "Mutation score = killed / activated" in text
    assert text.index("detected / seeded") < text.index("Mutation score = killed / activated")


def test_prefect_artifacts_have_the_headline_and_the_reached_column(root: Path) -> None:
    from adat.reporting.night import evaluation_artifacts

    published = evaluation_artifacts(RunConfig(data_dir=str(root)), "r2", None)
    text = published.markdown["adat-evaluation-summary"][0]
    table = {r["metric"]: r for r in published.tables["adat-evaluation"][0]}
    assert table["detected / seeded"]["value"] == 0.5
    assert table["detected / seeded"]["query"] == "adat sql seeded_fault_detection --run r2"
    assert {r["fault"]: r["activated"] for r in published.tables["adat-fault-detection"][0]} == {
        "F1": True, "F2": True, "F3": False, "F4": True}
    metrics = evaluation_metrics(RunConfig(data_dir=str(root)), "r2")
    assert "| detected / seeded | 0.500 | 2 detected / 4 seeded; activated (reached) 3 / 4; unreached: F3 |" in text
    assert "| `F3` | no (unreached) | 2 |" in text and "| `F1` | yes | 3 |" in text
    headline = artifacts.headline_figures(
        {"run_id": "r2", "statements": 0, "grounded_statements": 0, "tests": {}, "attempts": 0,
         "not_applicable": 0, "verdicts": {}, "target_errors": 0, "llm_calls": {}}, metrics)
    assert headline["detected / seeded"] == 0.5


def test_html_report_shows_detected_over_seeded_and_tdad_activated_over_intents(root: Path) -> None:
    html = render_report(report_context(ReportQueries(root), "r2"))
    assert "seeded faults detected / seeded" in html
    assert "2 detected of 4 seeded; activated (reached) 3 of 4; unreached: F3" in html
    # TDAD's prompt mutants keep MS = killed / activated, next to activated / intents
    assert "1 killed of 3 activated (killed / activated); activated 3 of 4 intents; not activated: M4" in html
    assert "compilation did not converge: MS of an uncompiled prompt" in html  # r2's spec run stopped at 2/3 visible


def test_spec_suite_summary_keeps_ms_next_to_activated_over_intents(root: Path) -> None:
    from adat.tdad.spec_suite_figures import spec_metrics, summary_lines

    lines = summary_lines("r2", spec_metrics(RunConfig(data_dir=str(root)), "r2"))
    ms = next(line for line in lines if line.startswith("- MS:"))
    assert ms.startswith("- MS: 33% (1 killed / 3 activated); activated / intents: 3 / 4 (75%);"), ms
    # r2's compilation ended at 2/3 visible tests: its MS is marked as a figure of an uncompiled prompt
    assert ms.endswith("not activated (not scored): M4 [compilation did not converge: figures of an uncompiled prompt]")
