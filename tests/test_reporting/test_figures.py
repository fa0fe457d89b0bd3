"""The report's plots: inline SVG with drawn marks for data, None (and a reason in the page) for none."""

from __future__ import annotations

import re

from adat.reporting import figures


def marks(svg: str) -> int:
    return len(re.findall(r"<path ", svg))


def test_each_plot_is_an_svg_with_marks_and_none_without_rows() -> None:
    progress = [{"attempt_no": i, "transformed_tests": i // 2, "statements_covered": i // 3} for i in range(1, 9)]
    stats = [{"instruction_id": f"k{i}", "attempts": i, "tests_written": i - 1, "mean_reward": 0.5} for i in range(1, 4)]
    counts = [{"agent_variant": "original", "kind": "plain", "pass": 3, "fail": 1, "inconclusive": 0, "unjudged": 0}]
    validity = [{"kind": "plain", "validity": "explicit", "tests": 3}, {"kind": "plain", "validity": "invalid", "tests": 1}]
    labels = [{"agent_variant": "original", "kind": "plain", "tp": 1, "tn": 2, "fp": 0, "fn": 0, "inc": 1}]
    faults = [{"fault": "F1", "tests_run": 4, "detecting_tests": 1, "detected": True}]
    drawn = [figures.coverage_plot(progress), figures.instruction_plot(stats), figures.verdict_plot(counts),
             figures.audit_plot(validity, labels), figures.fault_plot(faults),
             figures.statement_change_plot({"appeared": 2, "vanished": 1, "changed": 0, "unchanged": 5})]
    for svg in drawn:
        assert svg is not None and svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        assert marks(svg) > 5
        assert "<?xml" not in svg and "<!DOCTYPE" not in svg  # inlined into HTML as is
    assert figures.coverage_plot([]) is None and figures.fault_plot([]) is None
    assert figures.audit_plot([{"kind": "plain", "validity": "unaudited", "tests": 4}], []) is None
    assert figures.statement_change_plot({"appeared": 0, "vanished": 0, "changed": 0, "unchanged": 0}) is None


def test_plots_are_deterministic() -> None:
    faults = [{"fault": "F1", "tests_run": 4, "detecting_tests": 1, "detected": True}]
    assert figures.fault_plot(faults) == figures.fault_plot(faults)
