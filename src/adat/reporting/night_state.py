"""Whether a night needs a person: its failing tests, the tests that newly fail, surviving faults.

A test *newly fails* when it passed in the run the night is compared with and fails tonight on
the agent the night tested: with a blessed suite, the suite's own run (the ``regression`` mode of
:func:`adat.reporting.run_diff.gate_failures`, the CI gate's rule); without one, the previous
night of the same config, its tests paired by content identity (``adat diff``). A *surviving
fault* is a seeded fault the evaluation activated and no test detected. Either makes the night
red: the nightly flow run ends ``Failed`` with :attr:`NightState.headline` as its message.
Every row is a row of a query in ``sql/`` (``test_verdicts``, ``verdict_changes``,
``paired_verdict_changes``, ``fault_detection``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from adat.records import Run
from adat.warehouse.parquet import read_records
from adat.warehouse.queries import ReportQueries

RUN_TARGET = "(run target)"


@dataclass
class NightState:
    """What a person acts on after a night."""

    run_id: str
    #: the run pass -> fail is measured against (the blessed suite run or the previous night)
    baseline: str | None
    failing: list[dict[str, Any]] = field(default_factory=list)
    newly_failing: list[dict[str, Any]] = field(default_factory=list)
    surviving_faults: list[str] = field(default_factory=list)

    @property
    def red(self) -> bool:
        return bool(self.newly_failing or self.surviving_faults)

    @property
    def headline(self) -> str:
        """One line: what is wrong tonight (or that nothing is)."""
        parts = []
        if self.newly_failing:
            parts.append(f"{len(self.newly_failing)} test(s) pass -> fail against {self.baseline} "
                         f"({', '.join(r['test_id'] for r in self.newly_failing[:5])})")
        if self.surviving_faults:
            parts.append(f"{len(self.surviving_faults)} seeded fault(s) survived ({', '.join(self.surviving_faults)})")
        if not parts:
            return f"night {self.run_id}: no regression, no surviving fault; {len(self.failing)} failing test(s)"
        return f"night {self.run_id}: " + "; ".join(parts)

    def markdown(self, limit: int = 30) -> str:
        """The "Needs attention" section of the nightly artifact: newly failing, then failing tests,
        each with its goal and the judge's rationale."""
        lines = ["## Needs attention" if self.red else "## Verdicts tonight", "", f"**{self.headline}**", ""]
        if self.surviving_faults:
            lines += ["Seeded faults no test detected: " + ", ".join(f"`{f}`" for f in self.surviving_faults), ""]
        for title, rows in ((f"Newly failing (pass → fail against `{self.baseline}`)", self.newly_failing),
                            ("Failing tonight", self.failing)):
            lines += [f"### {title}: {len(rows)}", ""]
            if rows:
                lines += ["| test | kind | goal | rationale |", "|---|---|---|---|"]
                lines += [f"| `{r['test_id']}` | {r['kind']} | {_cell(r.get('goal'))} | {_cell(r.get('rationale'))} |"
                          for r in rows[:limit]]
                if len(rows) > limit:
                    lines.append(f"| … {len(rows) - limit} more: `adat sql test_verdicts --run {self.run_id}` | | | |")
                lines.append("")
        return "\n".join(lines)


def _cell(text: Any, width: int = 200) -> str:
    value = " ".join(str(text or "").split()).replace("|", "\\|")
    return value if len(value) <= width else value[: width - 1] + "…"


def run_variant(root: Path, run_id: str) -> str:
    """The agent variant run ``run_id`` was started against ('original' or a fault id)."""
    runs = cast(list[Run], read_records(root, "runs", run_id=run_id))
    return runs[-1].agent_variant if runs else "original"


def failing_tests(root: Path, run_id: str) -> list[dict[str, Any]]:
    """Tests judged fail tonight on the variant the night tested (rows of ``test_verdicts``)."""
    variant = run_variant(root, run_id)
    return [r for r in ReportQueries(root).rows("test_verdicts", run_id=run_id)
            if r["verdict"] == "fail" and r["agent_variant"] == variant]


def newly_failing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """pass -> fail rows of ``verdict_changes`` / ``paired_verdict_changes`` on the tested variant."""
    return [r for r in rows if r["variant_key"] == RUN_TARGET and r["verdict_a"] == "pass" and r["verdict_b"] == "fail"]


def surviving_faults(detection: list[dict[str, Any]] | None) -> list[str]:
    """Faults of ``fault_detection`` rows that were activated and detected by no test."""
    return [str(r["fault"]) for r in detection or [] if r.get("activated") and not r.get("detected")]


def night_state(root: Path, run_id: str, baseline: str | None, newly: list[dict[str, Any]],
                detection: list[dict[str, Any]] | None = None) -> NightState:
    """The night's state from its newly failing tests against ``baseline`` (rows with test_id,
    kind, goal and rationale or rationale_b) and, when it was evaluated, the fault detection rows."""
    rows = [{**r, "rationale": r.get("rationale") or r.get("rationale_b")} for r in newly]
    return NightState(run_id=run_id, baseline=baseline, failing=failing_tests(root, run_id),
                      newly_failing=rows, surviving_faults=surviving_faults(detection))
