"""Headline figures of a spec-suite run, every one read from a ``sql/metrics`` file.

Per spec version: visible / hidden / invariant test counts, VPR per compile iteration from the
start prompt, HPR, MS (killed / activated, next to activated / intents; survivors and non-activated
mutants named), SURS (with the v1-failed and not-runnable invariant tests named), pass^k, whether
compilation converged (HPR, MS and SURS of a run that did not are marked so), and for an external
target the assertions it could not show for want of fixtures. Who played each role is derived
from the roles' providers. The CLI prints them; the flow publishes them as Prefect artifacts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adat.config import RunConfig

#: metric file -> what the summary calls it
SPEC_METRICS = ("tdad_test_counts", "tdad_vpr_by_iteration", "tdad_hidden_pass_rate", "mutation_score",
                "tdad_surs", "tdad_pass_k", "tdad_flaky_tests", "tdad_unobservable_without_fixtures")
#: compile_status (int_tdad_compile_status) -> the mark HPR, MS and SURS carry when it is not 'converged'
STATUS_MARK = {"not_converged": " [compilation did not converge: figures of an uncompiled prompt]",
               "not_compiled": " [not compiled: the agent does not read the prompt]"}


def spec_metrics(cfg: RunConfig, run_id: str, sql_dir: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Metric name -> its rows for ``run_id``."""
    from adat.warehouse.queries import ReportQueries

    queries = ReportQueries(cfg.data_path(), sql_dir)
    # mutation_score scores every kind of variant; a spec suite's are its prompt mutants
    return {name: [r for r in queries.rows(name, run_id=run_id) if r.get("kind", "prompt") == "prompt"]
            for name in SPEC_METRICS}


def _pct(value: Any) -> str:
    return "—" if value is None else f"{value:.0%}"


def _mark(row: dict[str, Any]) -> str:
    return STATUS_MARK.get(str(row.get("compile_status") or ""), "")


def _named(label: str, names: list[str]) -> str:
    return f"; {label}: {', '.join(names)}" if names else ""


def summary_lines(run_id: str, m: dict[str, list[dict[str, Any]]], *, roles: list[str] | None = None,
                  target_line: str = "") -> list[str]:
    """The figures as markdown-ish lines (the same text for the terminal and the Prefect UI).

    ``roles``: who played what (:func:`role_lines`). ``target_line``: why compilation / prompt
    mutation were skipped.
    """
    counts = (m["tdad_test_counts"] or [{}])[0]
    title = f"{counts.get('spec_id', '?')} (version {counts.get('spec_version', '?')}), run {run_id}"
    lines = [f"## {title}", *(roles or [])]
    if target_line:
        lines.append(f"- {target_line}")
    lines.append(f"- tests: {counts.get('visible_tests', 0)} visible, {counts.get('hidden_tests', 0)} hidden"
                 + (f", {counts['invariant_tests']} v1 invariant" if counts.get("invariant_tests") else ""))
    rows = m["tdad_vpr_by_iteration"]
    vpr = " → ".join(f"{r['iteration']}:{_pct(r['vpr'])}{'' if r['promoted'] else '(kept)'}" for r in rows)
    last = rows[-1] if rows else None
    status = ""
    if last and last.get("compile_status") == "converged":
        status = f" — converged (all visible tests pass after {last['iteration']} of {last['budget']} iterations)"
    elif last and last.get("compile_status") == "not_converged":
        status = (f" — NOT converged: {last['visible_passed']}/{last['visible_tests']} visible tests pass after "
                  f"{last['iteration']} iteration(s) of a budget of {last['budget']}")
    elif last and last.get("compile_status") == "not_compiled":
        status = " — not compiled (start prompt run only)"
    lines.append(f"- VPR per compile iteration (0 = start prompt): {vpr or '—'}{status}")
    if last and last["failing"]:
        shown = last["failing"][:5]
        lines.append(f"  still failing visible ({len(last['failing'])}): {', '.join(shown)}"
                     + (" …" if len(last["failing"]) > len(shown) else "")
                     + (f"; of them not observable (never a pass): {last['visible_not_observable']}"
                        if last.get("visible_not_observable") else ""))
    hpr = (m["tdad_hidden_pass_rate"] or [{}])[0]
    if not hpr and counts.get("hidden_tests") and not m["tdad_pass_k"]:  # `spec compile`: no reruns yet
        lines.append("- HPR: — (the hidden tests run after compilation: `adat spec run`)")
    else:
        lines.append(f"- HPR: {_pct(hpr.get('hpr'))} ({hpr.get('hidden_passed', 0)}/{hpr.get('hidden_tests', 0)})"
                     + (f"; {hpr['hidden_not_observable']} not observable (counted as not passed)"
                        if hpr.get("hidden_not_observable") else "") + _mark(hpr))
    ms = m["mutation_score"][0] if m["mutation_score"] else None
    if ms:
        # the paper's MS (killed / activated) next to how many intents the probes activated, so a
        # high MS over few activated intents is not read as a strong suite
        lines.append(f"- MS: {_pct(ms['mutation_score'])} ({ms['killed']} killed / {ms['activated']} activated); "
                     f"activated / intents: {ms['activated_intents'] or 0} / {ms['variants']} "
                     f"({_pct(ms['activation_rate'])}); "
                     + (f"identical mutants counted once: {', '.join(ms['duplicates'])}; " if ms["duplicates"] else "")
                     + f"survivors: {', '.join(ms['survivors']) or 'none'}; "
                     f"not activated (not scored): {', '.join(ms['not_activated']) or 'none'}" + _mark(ms))
    surs = m["tdad_surs"][0] if m["tdad_surs"] else None
    if surs:
        lines.append(f"- SURS: {_pct(surs['surs'])} ({surs['invariant_passed']}/{surs['invariant_tests']} v1 invariant "
                     f"tests that passed on v1 pass on v2)" + _named("broken", surs["broken"])
                     + _named("failed already on v1 (not counted)", surs["v1_failed"])
                     + _named("not runnable on v2 (not counted)", surs["not_runnable"]) + _mark(surs))
    for row in m["tdad_pass_k"]:
        lines.append(f"- pass^{row['k']} ({row['split']}): {_pct(row['pass_k_rate'])} ({row['tests_pass_k']}/"
                     f"{row['tests']}), mean pass rate {_pct(row['mean_pass_rate'])}, flaky {row['flaky']}")
    flaky = [r["test_id"] for r in m["tdad_flaky_tests"]]
    if flaky:
        lines.append(f"  flaky tests: {', '.join(flaky[:10])}{' …' if len(flaky) > 10 else ''}")
    blind = m.get("tdad_unobservable_without_fixtures") or []
    if blind:
        tests = max(r["tests"] for r in blind)
        kinds = "; ".join(f"{r['assertion_kind']} ({r['clause']}) in {r['tests']} test(s)" for r in blind[:8])
        lines.append(f"- the target takes no fixtures, so these assertions were not observable (never a pass), "
                     f"up to {tests} test(s) each: {kinds}{' …' if len(blind) > 8 else ''}")
    return lines


def role_lines(cfg: RunConfig) -> list[str]:
    """Who played each TDAD role and the agent, from the roles' providers: never "every role
    offline" when one of them (the spec agent, say) is a real model."""
    from adat.tdad.target_fit import target_fit

    fit = target_fit(cfg)
    models = cfg.models
    played = {"testsmith": models.testsmith}
    if fit.prompt_driven:
        played |= {"promptsmith": models.promptsmith, "mutationsmith": models.mutationsmith,
                   "the built agent": fit.agent_model or models.spec_agent}
    offline = [role for role, model in played.items() if model == OFFLINE]
    if len(offline) == len(played):
        who = "every role and the built agent" if fit.prompt_driven else "TestSmith"
        lines = [f"_{who} played by offline/heuristic, a rule-based stand-in, not a language model_"]
    else:
        by_model: dict[str, list[str]] = {}
        for role, model in played.items():
            by_model.setdefault(model, []).append(role)
        lines = ["_" + "; ".join(f"{', '.join(roles)}: {model}"
                                 + (" (a rule-based stand-in, not a language model)" if model == OFFLINE else "")
                                 for model, roles in by_model.items()) + "_"]
    if not fit.prompt_driven:
        lines.append(f"_agent under test: {fit.label()} ({cfg.target.type} target)_")
    return lines


OFFLINE = "offline/heuristic"


def summary_for(cfg: RunConfig, run_id: str, metrics: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The summary lines of ``run_id`` run under ``cfg`` (roles and target from the config)."""
    from adat.tdad.target_fit import target_fit

    return summary_lines(run_id, metrics, roles=role_lines(cfg), target_line=target_fit(cfg).skipped_line())
