"""The Prefect UI artifacts of a run, an evaluation and a night, gathered from the warehouse.

Each function returns :class:`UIArtifacts` (markdown and tables by artifact key, every table's
rows with the same columns); ``flows/_artifacts.py`` publishes them on the flow run that calls it.
The night compares with the previous night of the same config (``sql/report/previous_same_config.sql``)
and folds in ``adat diff`` against it; a fresh suite generated next to a blessed one lists its new
tests and statements as candidate additions.

What needs a person comes first (:class:`NightState`). A test *newly fails* when it passed in the
run the night is compared with and fails tonight on the agent the night tested: with a blessed
suite, the suite's own run (the ``regression`` mode of :func:`adat.reporting.gate.evaluate_gate`,
the CI gate's rule); without one, the previous night of the same config, its tests paired by
content identity (``adat diff``). A *surviving fault* is a seeded fault the evaluation activated
and no test detected. Either makes the night red: the nightly flow run ends ``Failed`` with
:attr:`NightState.headline` as its message. Every row is a row of a query in ``sql/``
(``test_verdicts``, ``verdict_changes``, ``paired_verdict_changes``, ``fault_detection``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from adat.config import RunConfig
from adat.records import Run
from adat.reporting import artifacts as a

# the warehouse readers load DuckDB and pyarrow: imported where a night is gathered, not by
# flows/_artifacts.py, which imports this module

#: verdict_changes.sql's variant_key of the variant each run was started against
RUN_TARGET = "(run target)"


@dataclass
class UIArtifacts:
    """key -> (markdown, description) and key -> (rows, description), in publishing order."""

    markdown: dict[str, tuple[str, str]] = field(default_factory=dict)
    tables: dict[str, tuple[list[dict[str, Any]], str]] = field(default_factory=dict)
    #: a night that needs a person: the one line its flow run fails with (None: green)
    failure: str | None = None

    def table(self, key: str, rows: list[dict[str, Any]], description: str) -> None:
        """Add a table (nothing when it has no rows); its rows get the same columns."""
        if rows:
            self.tables[key] = (a.uniform_rows(rows), description)

    def evaluation_tables(self, metrics: a.Metrics, run_id: str) -> None:
        """Evaluation metrics (``adat-evaluation``) and detection per fault (``adat-fault-detection``)."""
        self.table("adat-evaluation", a.evaluation_rows(metrics, run_id), f"evaluation metrics of run {run_id}")
        self.table("adat-fault-detection", a.fault_rows(metrics), f"detection per seeded fault, run {run_id}")


def run_artifacts(root: Path, run_id: str) -> UIArtifacts:
    """A run's summary markdown (``adat-run-summary``) and its verdicts per kind (``adat-verdicts``)."""
    from adat.run_figures import run_summary, summary_markdown

    summary = run_summary(root, run_id)
    out = UIArtifacts(markdown={"adat-run-summary": (summary_markdown(summary), f"adat run {run_id}")})
    out.table("adat-verdicts", a.verdict_rows(summary), f"verdicts of run {run_id}")
    return out


def evaluation_artifacts(cfg: RunConfig, run_id: str, faults: list[str] | None) -> UIArtifacts:
    """V/C, V_E/C, FAR, accuracy and the mutation score (``adat-evaluation``), detection per fault
    (``adat-fault-detection``) and both as markdown (``adat-evaluation-summary``)."""
    from adat.evaluation.evaluation_figures import evaluation_metrics
    from adat.run_figures import is_offline

    metrics = evaluation_metrics(cfg, run_id, faults=faults)
    offline = is_offline(cfg.data_path(), run_id)
    out = UIArtifacts(markdown={"adat-evaluation-summary": (a.evaluation_markdown(metrics, run_id, offline),
                                                            f"evaluation of run {run_id}")})
    out.evaluation_tables(metrics, run_id)
    return out


def _headline_metrics(cfg: RunConfig, run_id: str, faults: list[str] | None) -> a.Metrics:
    """The evaluation metrics of an audited run (a test of it has an audit label); none (its
    figures None, not 0) for one never evaluated."""
    from adat.evaluation.evaluation_figures import evaluation_metrics
    from adat.warehouse.queries import ReportQueries

    validity = ReportQueries(cfg.data_path()).rows("audit_validity_counts", run_id=run_id)
    audited = any(r["validity"] != "unaudited" for r in validity)
    return evaluation_metrics(cfg, run_id, faults=faults) if audited else {}


def previous_night(root: Path, run_id: str) -> str | None:
    """The latest earlier run of the same flow and config (None on the first night)."""
    from adat.warehouse.queries import ReportQueries

    rows = ReportQueries(root).rows("previous_same_config", run_id=run_id)
    return str(rows[0]["run_id"]) if rows else None


def night_artifacts(cfg: RunConfig, run_id: str, report: str | None = None, faults: list[str] | None = None,
                    evaluated: bool = False, run_url: str | None = None, suite_run: str | None = None,
                    fresh: str | None = None) -> UIArtifacts:
    """The nightly flow run's artifacts: the ``adat-nightly`` summary (what needs attention, headline
    figures next to the previous night's, what changed, links) and its tables —
    ``adat-nightly-headline``, ``adat-verdicts``, ``adat-newly-failing``, ``adat-verdict-changes``,
    ``adat-candidate-tests`` and, when ``evaluated``, the evaluation's tables.

    ``suite_run``: the blessed suite the night ran (pass -> fail is measured against it);
    ``fresh``: a suite generated next to it tonight (its new tests are candidate additions);
    ``evaluated``: the run evaluated tonight (``fresh`` when there is one, else ``run_id``)."""
    from adat.reporting.gate import evaluate_gate
    from adat.reporting.run_diff import diff_markdown, run_diff
    from adat.run_figures import run_summary
    from adat.suites.identity import pair_runs
    from adat.warehouse.queries import ReportQueries

    root = cfg.data_path()
    summary = run_summary(root, run_id)
    evaluated_run = fresh or run_id
    metrics = _headline_metrics(cfg, evaluated_run, faults)
    previous = previous_night(root, run_id)
    before = a.headline_figures(run_summary(root, previous), _headline_metrics(cfg, previous, faults)) if previous else None
    headline = a.headline_rows(a.headline_figures(summary, metrics), before)
    out = UIArtifacts()
    out.table("adat-nightly-headline", headline, f"run {run_id} next to {previous or 'no previous night'}")
    out.table("adat-verdicts", a.verdict_rows(summary), f"verdicts of run {run_id}")
    diff = run_diff(root, previous, run_id) if previous else None
    detection = metrics.get("fault_detection") if evaluated else None
    if suite_run:
        regressed = evaluate_gate(root, run_id, suite_run, "regression").counted
        state = night_state(root, run_id, suite_run, regressed, detection)
    else:
        state = night_state(root, run_id, previous, newly_failing(diff.verdicts) if diff else [], detection)
    out.failure = state.headline if state.red else None
    out.table("adat-newly-failing", [{"test_id": r["test_id"], "kind": r["kind"], "goal": r.get("goal"),
                                      "rationale": r.get("rationale")} for r in state.newly_failing],
              f"tests that pass -> fail in {run_id} against {state.baseline}")
    if diff is not None:
        out.table("adat-verdict-changes", [{"change": r["change"], "test_id": r["test_id"], "kind": r["kind"],
                                            "agent_variant": r["agent_variant"]} for r in diff.verdict_changes],
                  f"verdict changes {previous} → {run_id}")
    # the fresh suite's tests paired with the blessed suite's (adat.suites.identity)
    candidates = pair_runs(ReportQueries(root), suite_run, fresh) if suite_run and fresh else None
    if candidates is not None:
        out.table("adat-candidate-tests", [{"test_id": t["test_id"], "kind": t["kind"], "instruction_id":
                                            t["instruction_id"], "goal": t["goal"]} for t in candidates.new],
                  f"tests of {fresh} with no counterpart in the blessed suite {suite_run}")
    if evaluated:
        out.evaluation_tables(metrics, evaluated_run)
    text = a.night_markdown(summary, headline, previous, diff_markdown(diff) if diff else None, report,
                            list(out.tables), run_url)
    title, _, rest = text.partition("\n")
    extra = [state.markdown()]
    if suite_run:
        extra.append(f"Tonight ran the blessed suite `{suite_run}`" + (f"; a fresh suite was generated as `{fresh}`."
                                                                       if fresh else "."))
    if candidates is not None:
        extra.append(_candidates_markdown(candidates, fresh or "", suite_run or ""))
    out.markdown = {"adat-nightly": ("\n".join([title, "", *extra, rest]), f"adat nightly {run_id}")}
    return out


def _candidates_markdown(pairing: Any, fresh: str, suite_run: str, limit: int = 20) -> str:
    lines = [f"## Candidate additions from `{fresh}`", "",
             f"{len(pairing.new)} of its {pairing.tests_b} tests have no counterpart in the blessed suite "
             f"`{suite_run}` ({len(pairing.retired)} of the suite's tests none in it). Bless it to adopt them: "
             f"`adat suite bless {fresh} --name NAME`.", ""]
    lines += [f"* `{t['test_id']}` ({t['kind']}{', ' + t['instruction_id'] if t['instruction_id'] else ''}) "
              f"{t['goal'] or ''}" for t in pairing.new[:limit]]
    return "\n".join(lines)


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


def failing_tests(root: Path, run_id: str) -> list[dict[str, Any]]:
    """Tests judged fail tonight on the variant the night tested (rows of ``test_verdicts``)."""
    from adat.warehouse.parquet import read_records
    from adat.warehouse.queries import ReportQueries

    runs = cast(list[Run], read_records(root, "runs", run_id=run_id))
    variant = runs[-1].agent_variant if runs else "original"
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
