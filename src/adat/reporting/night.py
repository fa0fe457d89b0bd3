"""The Prefect UI artifacts of a run, an evaluation and a night, gathered from the warehouse.

Each function returns :class:`UIArtifacts` (markdown and tables by artifact key, every table's
rows with the same columns); ``flows/_artifacts.py`` publishes them on the flow run that calls it.
The night compares with the previous night of the same config (``sql/report/previous_same_config.sql``)
and folds in ``adat diff`` against it; what needs a person (newly failing tests, surviving faults)
comes first (:mod:`adat.reporting.night_state`), and a fresh suite generated next to a blessed one
lists its new tests and statements as candidate additions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adat.config import RunConfig
from adat.reporting import artifacts as a


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


def run_artifacts(root: Path, run_id: str) -> UIArtifacts:
    """A run's summary markdown (``adat-run-summary``) and its verdicts per kind (``adat-verdicts``)."""
    from adat.run_figures import run_summary, summary_markdown

    summary = run_summary(root, run_id)
    out = UIArtifacts(markdown={"adat-run-summary": (summary_markdown(summary), f"adat run {run_id}")})
    out.table("adat-verdicts", a.verdict_rows(summary), f"verdicts of run {run_id}")
    return out


def _metrics(cfg: RunConfig, run_id: str, faults: list[str] | None) -> dict[str, list[dict[str, Any]] | None]:
    from adat.evaluation.evaluation_figures import evaluation_metrics

    return evaluation_metrics(cfg, run_id, faults=faults)


def evaluation_artifacts(cfg: RunConfig, run_id: str, faults: list[str] | None) -> UIArtifacts:
    """V/C, V_E/C, FAR, accuracy and the mutation score (``adat-evaluation``), detection per fault
    (``adat-fault-detection``) and both as markdown (``adat-evaluation-summary``)."""
    from adat.run_figures import is_offline

    metrics = _metrics(cfg, run_id, faults)
    offline = is_offline(cfg.data_path(), run_id)
    out = UIArtifacts(markdown={"adat-evaluation-summary": (a.evaluation_markdown(metrics, run_id, offline),
                                                            f"evaluation of run {run_id}")})
    out.table("adat-evaluation", a.evaluation_rows(metrics, run_id), f"evaluation metrics of run {run_id}")
    out.table("adat-fault-detection", a.fault_rows(metrics), f"detection per seeded fault, run {run_id}")
    return out


def audited(root: Path, run_id: str) -> bool:
    """Whether any test of ``run_id`` has an audit label (an evaluation ran on it)."""
    from adat.warehouse.queries import ReportQueries

    return any(r["validity"] != "unaudited" for r in ReportQueries(root).rows("audit_validity_counts", run_id=run_id))


def _headline_metrics(cfg: RunConfig, run_id: str, faults: list[str] | None) -> dict[str, list[dict[str, Any]] | None]:
    """The evaluation metrics of an audited run; none (its figures None, not 0) for one never evaluated."""
    return _metrics(cfg, run_id, faults) if audited(cfg.data_path(), run_id) else {}


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
    from adat.reporting.night_state import newly_failing, night_state
    from adat.reporting.run_diff import diff_markdown, gate_failures, previous_run_diff
    from adat.run_figures import run_summary

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
    diff = previous_run_diff(root, run_id, query="previous_same_config") if previous else None
    if suite_run:
        state = night_state(root, run_id, suite_run, gate_failures(root, run_id, suite_run, "regression"),
                            metrics.get("fault_detection") if evaluated else None)
    else:
        state = night_state(root, run_id, previous, newly_failing(diff.verdicts) if diff else [],
                            metrics.get("fault_detection") if evaluated else None)
    out.failure = state.headline if state.red else None
    out.table("adat-newly-failing", [{"test_id": r["test_id"], "kind": r["kind"], "goal": r.get("goal"),
                                      "rationale": r.get("rationale")} for r in state.newly_failing],
              f"tests that pass -> fail in {run_id} against {state.baseline}")
    if diff is not None:
        out.table("adat-verdict-changes", [{"change": r["change"], "test_id": r["test_id"], "kind": r["kind"],
                                            "agent_variant": r["agent_variant"]} for r in diff.verdict_changes],
                  f"verdict changes {previous} → {run_id}")
    candidates = _candidates(root, suite_run, fresh) if suite_run and fresh else None
    if candidates is not None:
        out.table("adat-candidate-tests", [{"test_id": t["test_id"], "kind": t["kind"], "instruction_id":
                                            t["instruction_id"], "goal": t["goal"]} for t in candidates.new],
                  f"tests of {fresh} with no counterpart in the blessed suite {suite_run}")
    if evaluated:
        out.table("adat-evaluation", a.evaluation_rows(metrics, evaluated_run), f"evaluation metrics of run {evaluated_run}")
        out.table("adat-fault-detection", a.fault_rows(metrics), f"detection per seeded fault, run {evaluated_run}")
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


def _candidates(root: Path, suite_run: str, fresh: str) -> Any:
    """The fresh suite's tests paired with the blessed suite's (:mod:`adat.suites.identity`)."""
    from adat.suites.identity import pair_runs
    from adat.warehouse.queries import ReportQueries

    return pair_runs(ReportQueries(root), suite_run, fresh)


def _candidates_markdown(pairing: Any, fresh: str, suite_run: str, limit: int = 20) -> str:
    lines = [f"## Candidate additions from `{fresh}`", "",
             f"{len(pairing.new)} of its {pairing.tests_b} tests have no counterpart in the blessed suite "
             f"`{suite_run}` ({len(pairing.retired)} of the suite's tests none in it). Bless it to adopt them: "
             f"`adat suite bless {fresh} --name NAME`.", ""]
    lines += [f"* `{t['test_id']}` ({t['kind']}{', ' + t['instruction_id'] if t['instruction_id'] else ''}) "
              f"{t['goal'] or ''}" for t in pairing.new[:limit]]
    return "\n".join(lines)
