"""The report's plots, drawn with matplotlib into inline SVG text (no JavaScript, no network).

Each function takes rows of one SQL query (``sql/report`` or ``sql/metrics``) and returns an
``<svg>`` element as a string, or None when the rows are empty (the report then says why the
plot is missing). matplotlib's object API (``Figure``, no pyplot) keeps this thread-safe and
free of global state; ``svg.hashsalt`` is set per plot so ids are deterministic and distinct.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

VERDICT_COLORS = {"pass": "#2e7d32", "fail": "#c62828", "inconclusive": "#f9a825", "unjudged": "#9e9e9e"}
VALIDITY_COLORS = {"explicit": "#1565c0", "valid": "#64b5f6", "invalid": "#c62828", "unaudited": "#9e9e9e"}
LABEL_COLORS = {"tp": "#2e7d32", "tn": "#81c784", "fp": "#c62828", "fn": "#ef6c00", "inc": "#9e9e9e"}
CHANGE_COLORS = {"appeared": "#2e7d32", "vanished": "#c62828", "changed": "#f9a825", "unchanged": "#9e9e9e"}


def agent_name(variant: str) -> str:
    """How the report names an agent variant: 'the original agent' or 'faulty variant F'."""
    return "the original agent" if variant == "original" else f"faulty variant {variant}"


def _svg(fig: Figure, name: str) -> str:
    buffer = io.StringIO()
    with rc_context({"svg.hashsalt": f"adat-{name}", "svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG is inlined in HTML


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=96)
    fig.set_facecolor("white")
    return fig


def _stacked_barh(ax: Any, labels: Sequence[str], series: Mapping[str, Sequence[float]], colors: Mapping[str, str]) -> None:
    left = [0.0] * len(labels)
    for name, values in series.items():
        ax.barh(labels, values, left=left, color=colors.get(name, "#607d8b"), label=name)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.invert_yaxis()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _legend_outside(ax)
    ax.spines[["top", "right"]].set_visible(False)


def _legend_outside(ax: Any) -> None:
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)


def coverage_plot(progress: list[dict[str, Any]]) -> str | None:
    """Transformed tests and distinct statements covered after each attempt (transformation_progress)."""
    if not progress:
        return None
    fig = _figure(7.5, 3.2)
    ax = fig.add_subplot()
    x = [r["attempt_no"] for r in progress]
    ax.plot(x, [r["transformed_tests"] for r in progress], color="#1565c0", label="transformed tests")
    ax.plot(x, [r["statements_covered"] for r in progress], color="#ef6c00", label="distinct statements covered")
    ax.plot(x, x, color="#bdbdbd", linestyle=":", label="attempts")
    ax.set_xlabel("attempt")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("count")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig, "coverage")


def instruction_plot(stats: list[dict[str, Any]], top: int = 25) -> str | None:
    """Pulls (attempts) and mean reward per instruction, the most pulled first (instruction_stats)."""
    if not stats:
        return None
    rows = sorted(stats, key=lambda r: (-r["attempts"], r["instruction_id"]))[:top]
    labels = [r["instruction_id"] for r in rows]
    fig = _figure(8.5, 0.6 + 0.22 * len(rows))
    pulls, reward = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    pulls.barh(labels, [r["attempts"] for r in rows], color="#90caf9", label="attempts")
    pulls.barh(labels, [r["tests_written"] for r in rows], color="#1565c0", label="tests written")
    pulls.invert_yaxis()
    pulls.set_xlabel("pulls")
    pulls.xaxis.set_major_locator(MaxNLocator(integer=True))
    pulls.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, fontsize=8, frameon=False)
    pulls.tick_params(axis="y", labelsize=7)
    reward.barh(labels, [r["mean_reward"] or 0.0 for r in rows], color="#2e7d32")
    reward.set_xlim(0, 1)
    reward.set_xlabel("mean reward (1 pass, 0.5 inconclusive, 0 fail)")
    for ax in (pulls, reward):
        ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig, "instructions")


def verdict_plot(counts: list[dict[str, Any]], variant: str = "original") -> str | None:
    """Verdicts on ``variant`` (the variant the run executed) per test kind (verdict_counts)."""
    rows = [r for r in counts if r["agent_variant"] == variant]
    if not rows:
        return None
    fig = _figure(7.5, 0.9 + 0.4 * len(rows))
    ax = fig.add_subplot()
    series = {k: [r[k] for r in rows] for k in ("pass", "fail", "inconclusive", "unjudged")}
    _stacked_barh(ax, [r["kind"] for r in rows], series, VERDICT_COLORS)
    ax.set_xlabel(f"executions on {agent_name(variant)}")
    return _svg(fig, "verdicts")


def audit_plot(validity: list[dict[str, Any]], labels: list[dict[str, Any]]) -> str | None:
    """Audit validity per kind (audit_validity_counts) and execution labels per kind on the original
    agent (execution_label_counts); None when the run was not audited."""
    audited = [r for r in validity if r["validity"] != "unaudited"]
    label_rows = [r for r in labels if r["agent_variant"] == "original" and r["kind"] not in (None, "all")]
    if not audited:
        return None
    kinds = sorted({r["kind"] for r in validity})
    fig = _figure(7.5, 1.6 + 0.8 * len(kinds))
    left, right = fig.subplots(2, 1, gridspec_kw={"hspace": 0.6})
    by = {(r["kind"], r["validity"]): r["tests"] for r in validity}
    _stacked_barh(left, kinds, {v: [by.get((k, v), 0) for k in kinds] for v in VALIDITY_COLORS}, VALIDITY_COLORS)
    left.set_xlabel("tests by audit validity")
    if label_rows:
        names = [r["kind"] for r in label_rows]
        _stacked_barh(right, names, {k.upper(): [r[k] for r in label_rows] for k in LABEL_COLORS},
                      {k.upper(): c for k, c in LABEL_COLORS.items()})
    right.set_xlabel("execution labels, original agent")
    return _svg(fig, "audit")


def fault_plot(detection: list[dict[str, Any]]) -> str | None:
    """Tests run and detecting tests per seeded fault (fault_detection); a fault nobody audited (a
    run-suite run on it) shows its pass -> fail tests instead, labelled so."""
    if not detection:
        return None
    fig = _figure(8.5, 0.8 + 0.3 * len(detection))
    ax = fig.add_subplot()
    faults = [r["fault"] + ("" if r["detecting_tests"] is not None else " (not audited)") for r in detection]
    ax.barh(faults, [r["tests_run"] for r in detection], color="#e0e0e0", label="tests run")
    ax.barh(faults, [r["detecting_tests"] if r["detecting_tests"] is not None else r["pass_to_fail"]
                     for r in detection],
            color=["#2e7d32" if r["detected"] else "#c62828" for r in detection],
            label="detecting tests (not audited: pass -> fail)")
    # a few detecting tests next to ~100 run would be invisible on a linear axis
    logged = max(r["tests_run"] for r in detection) > 50
    if logged:
        ax.set_xscale("symlog", linthresh=10)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlabel(f"tests{' (symlog scale)' if logged else ''}; green = detected, red = missed")
    _legend_outside(ax)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig, "faults")


def statement_change_plot(counts: dict[str, int]) -> str | None:
    """Statements that appeared, vanished, changed or stayed since the previous run."""
    if not counts or not any(counts.values()):
        return None
    fig = _figure(7.5, 1.8)
    ax = fig.add_subplot()
    names = list(CHANGE_COLORS)
    ax.barh(names, [counts.get(n, 0) for n in names], color=[CHANGE_COLORS[n] for n in names])
    ax.invert_yaxis()
    ax.set_xlabel("grounded statements vs the previous run")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig, "statements")
