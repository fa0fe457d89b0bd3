"""The CI gate of ``run-suite --fail-on fail|regression|flaky``: which tests fail it, and which are shown apart.

Every number comes from ``sql/report/gate_tests.sql`` (trials, passes, history, suite verdict,
audit validity, flake class); this module only decides, per test, from those counts:

* ``fail`` — a test with a failing trial counts, unless the auditor judged it invalid;
* ``regression`` — a test counts when its pass rate dropped beyond what its history explains:
  a one-sided Fisher exact test of its baseline trials (the suite run and earlier run-suite runs
  of the suite on the original agent) against this run's trials, significant at
  :data:`adat.config.REGRESSION_ALPHA`. When the trial counts are too few for *any* outcome to
  reach α (one baseline trial against three, say), the test cannot decide, and the test counts
  only if every baseline trial passed and no trial of this run did. Tests the auditor judged
  invalid, tests already failing in the suite run and tests with no baseline trial never count;
* ``flaky`` — a test whose trials are agent-flaky or judge-flaky counts, unless judged invalid.

Failing tests that do not count are listed apart with the reason, so a red or green gate says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

from adat.config import REGRESSION_ALPHA
from adat.errors import UserError
from adat.warehouse.queries import ReportQueries

#: ``adat run-suite --fail-on`` modes
FAIL_ON_MODES = ("fail", "regression", "flaky")
#: how a goal is cut in a gate line and a JUnit test name
GOAL_CHARS = 72


@dataclass
class Gate:
    """The tests that fail the gate (``counted``) and the failing ones that do not (``apart``)."""

    mode: str
    run_id: str
    suite_run_id: str
    counted: list[dict[str, Any]] = field(default_factory=list)
    apart: list[dict[str, Any]] = field(default_factory=list)
    tests: list[dict[str, Any]] = field(default_factory=list)


def check_mode(mode: str) -> None:
    """A ``--fail-on`` mode other than :data:`FAIL_ON_MODES` is a user error."""
    if mode not in FAIL_ON_MODES:
        raise UserError(f"unknown mode {mode!r}", field="--fail-on", fix=f"use {', '.join(FAIL_ON_MODES)}")


def regression_p_value(baseline_passes: int, baseline_trials: int, passes: int, trials: int) -> float:
    """One-sided Fisher exact p-value that this run's pass rate is below the baseline's."""
    from scipy.stats import fisher_exact

    table = [[baseline_passes, baseline_trials - baseline_passes], [passes, trials - passes]]
    return float(fisher_exact(table, alternative="greater").pvalue)


def can_reach_alpha(baseline_trials: int, trials: int, alpha: float = REGRESSION_ALPHA) -> bool:
    """Whether the most extreme outcome (every baseline trial passes, none of this run's) is
    significant: its p-value is 1 / C(baseline_trials + trials, trials)."""
    return 1 / comb(baseline_trials + trials, trials) < alpha


def _decide(row: dict[str, Any], mode: str, alpha: float) -> tuple[bool, str]:
    """(counts, reason) for one gate_tests row; reason is empty for a passing test not worth listing."""
    failing = row["fails"] > 0
    if row["validity"] == "invalid":
        flagged = failing if mode != "flaky" else row["flake_class"] != "stable"
        return False, "auditor judged the test invalid" if flagged else ""
    if mode == "fail":
        return failing, "a trial failed" if failing else ""
    if mode == "flaky":
        flaky = row["flake_class"] != "stable"
        return flaky, row["flake_class"] if flaky else ""
    if not failing:
        return False, ""
    if row["suite_verdict"] == "fail":
        return False, "already failing in the suite run"
    b_trials, b_passes = int(row["baseline_trials"]), int(row["baseline_passes"])
    if b_trials == 0:
        return False, "no baseline trial on the original agent"
    k, passes = int(row["k"]), int(row["passes"])
    p = regression_p_value(b_passes, b_trials, passes, k)
    row["p_value"] = p
    if can_reach_alpha(b_trials, k, alpha):
        if p < alpha:
            return True, f"pass rate {passes}/{k} vs baseline {b_passes}/{b_trials}: p={p:.3g} < α={alpha}"
        return False, f"within its history: pass rate {passes}/{k} vs baseline {b_passes}/{b_trials}, p={p:.3g}"
    if b_passes == b_trials and passes == 0:
        return True, f"every trial flipped: {passes}/{k} vs baseline {b_passes}/{b_trials} (too few trials for p<α)"
    return False, (f"within its history: pass rate {passes}/{k} vs baseline {b_passes}/{b_trials} "
                   "(too few trials for p<α, and not every trial flipped)")


def evaluate_gate(data_root: Path, run_id: str, suite_run_id: str, mode: str,
                  queries: ReportQueries | None = None, alpha: float = REGRESSION_ALPHA) -> Gate:
    """The gate of ``mode`` on run ``run_id`` of suite ``suite_run_id``."""
    check_mode(mode)
    queries = queries or ReportQueries(data_root)
    gate = Gate(mode=mode, run_id=run_id, suite_run_id=suite_run_id)
    for row in queries.rows("gate_tests", run_id=run_id, suite_run_id=suite_run_id):
        row["p_value"] = None
        counts, reason = _decide(row, mode, alpha)
        row["reason"] = reason
        row["counted"] = counts
        # the nightly's newly failing rows (adat.reporting.night): verdict_a / verdict_b / change
        row["verdict_a"], row["verdict_b"] = row["suite_verdict"], row["verdict"]
        row["change"] = (f"{row['suite_verdict']} -> {row['verdict']}" if row["suite_verdict"]
                         and row["suite_verdict"] != row["verdict"] else (row["verdict"] or ""))
        gate.tests.append(row)
        if counts:
            gate.counted.append(row)
        elif reason:
            gate.apart.append(row)
    return gate


def short_goal(goal: str | None, limit: int = GOAL_CHARS) -> str:
    """The goal on one line, cut at a word to ``limit`` characters."""
    text = " ".join(str(goal or "").split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def gate_line(row: dict[str, Any]) -> str:
    """One test of the gate on one line: id, goal, verdict over trials, audit validity, reason."""
    trials = f"{row['passes']}/{row['k']} pass" if row["k"] > 1 else str(row["verdict"])
    change = f" ({row['change']})" if " -> " in row["change"] else ""
    return (f"{row['test_id']}  {row['kind']:<11} \"{short_goal(row['goal'])}\"  verdict: {trials}{change}"
            f"  [{row['flake_class']}]  audit: {row['validity']}  — {row['reason']}")


def gate_lines(gate: Gate) -> list[str]:
    """What ``run-suite --fail-on`` prints: the counted tests, then the ones shown apart, then the total."""
    lines = [f"FAIL  {gate_line(r)}" for r in gate.counted]
    if gate.apart:
        lines.append(f"not counted by --fail-on {gate.mode} ({len(gate.apart)}):")
        lines += [f"  -   {gate_line(r)}" for r in gate.apart]
    lines.append(f"--fail-on {gate.mode}: {len(gate.counted)} test(s) of {len(gate.tests)} fail the gate"
                 + ("; exit 1" if gate.counted else ""))
    return lines
