"""Headline figures of a spec-suite run, every one read from a ``sql/metrics`` file.

Per spec version: visible / hidden / invariant test counts, VPR per compile iteration from the
start prompt, HPR, MS (killed / activated, next to activated / intents; survivors and non-activated
mutants named), SURS and
pass^k. The CLI prints them; the flow publishes them as Prefect artifacts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from adat.config import RunConfig

#: metric file -> what the summary calls it
SPEC_METRICS = ("tdad_test_counts", "tdad_vpr_by_iteration", "tdad_hidden_pass_rate", "mutation_score",
                "tdad_surs", "tdad_pass_k", "tdad_flaky_tests")


def spec_metrics(cfg: RunConfig, run_id: str, sql_dir: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Metric name -> its rows for ``run_id``."""
    from adat.warehouse.queries import ReportQueries

    queries = ReportQueries(cfg.data_path(), sql_dir)
    # mutation_score scores every kind of variant; a spec suite's are its prompt mutants
    return {name: [r for r in queries.rows(name, run_id=run_id) if r.get("kind", "prompt") == "prompt"]
            for name in SPEC_METRICS}


def _pct(value: Any) -> str:
    return "—" if value is None else f"{value:.0%}"


def summary_lines(run_id: str, m: dict[str, list[dict[str, Any]]], *, offline: bool) -> list[str]:
    """The figures as markdown-ish lines (the same text for the terminal and the Prefect UI)."""
    counts = (m["tdad_test_counts"] or [{}])[0]
    title = f"{counts.get('spec_id', '?')} (version {counts.get('spec_version', '?')}), run {run_id}"
    lines = [f"## {title}"]
    if offline:
        lines.append("_every role and the built agent played by offline/heuristic, a rule-based stand-in, "
                     "not a language model_")
    lines.append(f"- tests: {counts.get('visible_tests', 0)} visible, {counts.get('hidden_tests', 0)} hidden"
                 + (f", {counts['invariant_tests']} v1 invariant" if counts.get("invariant_tests") else ""))
    vpr = " → ".join(f"{r['iteration']}:{_pct(r['vpr'])}{'' if r['promoted'] else '(kept)'}"
                     for r in m["tdad_vpr_by_iteration"])
    lines.append(f"- VPR per compile iteration (0 = start prompt): {vpr or '—'}")
    last = m["tdad_vpr_by_iteration"][-1] if m["tdad_vpr_by_iteration"] else None
    if last and last["failing"]:
        shown = last["failing"][:5]
        lines.append(f"  still failing visible ({len(last['failing'])}): {', '.join(shown)}"
                     + (" …" if len(last["failing"]) > len(shown) else "")
                     + (f"; of them not observable (never a pass): {last['visible_not_observable']}"
                        if last.get("visible_not_observable") else ""))
    hpr = (m["tdad_hidden_pass_rate"] or [{}])[0]
    lines.append(f"- HPR: {_pct(hpr.get('hpr'))} ({hpr.get('hidden_passed', 0)}/{hpr.get('hidden_tests', 0)})"
                 + (f"; {hpr['hidden_not_observable']} not observable (counted as not passed)"
                    if hpr.get("hidden_not_observable") else ""))
    ms = m["mutation_score"][0] if m["mutation_score"] else None
    if ms:
        # the paper's MS (killed / activated) next to how many intents the probes activated, so a
        # high MS over few activated intents is not read as a strong suite
        lines.append(f"- MS: {_pct(ms['mutation_score'])} ({ms['killed']} killed / {ms['activated']} activated); "
                     f"activated / intents: {ms['activated_intents'] or 0} / {ms['variants']} "
                     f"({_pct(ms['activation_rate'])}); "
                     + (f"identical mutants counted once: {', '.join(ms['duplicates'])}; " if ms["duplicates"] else "")
                     + f"survivors: {', '.join(ms['survivors']) or 'none'}; "
                     f"not activated (not scored): {', '.join(ms['not_activated']) or 'none'}")
    surs = m["tdad_surs"][0] if m["tdad_surs"] else None
    if surs:
        lines.append(f"- SURS: {_pct(surs['surs'])} ({surs['invariant_passed']}/{surs['invariant_tests']} v1 "
                     f"invariant tests pass)" + (f"; broken: {', '.join(surs['broken'])}" if surs["broken"] else ""))
    for row in m["tdad_pass_k"]:
        lines.append(f"- pass^{row['k']} ({row['split']}): {_pct(row['pass_k_rate'])} ({row['tests_pass_k']}/"
                     f"{row['tests']}), mean pass rate {_pct(row['mean_pass_rate'])}, flaky {row['flaky']}")
    flaky = [r["test_id"] for r in m["tdad_flaky_tests"]]
    if flaky:
        lines.append(f"  flaky tests: {', '.join(flaky[:10])}{' …' if len(flaky) > 10 else ''}")
    return lines


def is_offline(cfg: RunConfig) -> bool:
    models = cfg.models
    return "offline/heuristic" in {models.testsmith, models.promptsmith, models.mutationsmith, models.spec_agent}


def print_spec_summary(console: Console, cfg: RunConfig, run_id: str) -> dict[str, list[dict[str, Any]]]:
    metrics = spec_metrics(cfg, run_id)
    for line in summary_lines(run_id, metrics, offline=is_offline(cfg)):
        console.print(line, markup=False, highlight=False)
    console.print(f"  (from sql/metrics: adat sql tdad_vpr_by_iteration --run {run_id}, ...)", markup=False)
    return metrics
