"""The compile-success flag (issue #28 item 6): a run records whether compilation converged (every
visible test passing within the budget); HPR, MS and SURS of a run that did not are marked so in
sql/metrics (a column) and in the summary."""

from __future__ import annotations

from pathlib import Path

from adat.config import RunConfig
from adat.records import CompileIteration, MutantRow, SpecResult
from adat.tdad.spec_suite_figures import spec_metrics, summary_lines
from adat.warehouse import write_records


def _row(run: str, test: str, passed: bool, *, scope: str, split: str = "visible", iteration: int = 0,
         digest: str = "D0") -> SpecResult:
    return SpecResult(run_id=run, result_id=f"{run}-{scope}-{iteration}-{test}", spec_id="s", spec_version="1.0",
                      test_id=test, split=split, artifact_digest=digest, iteration=iteration, scope=scope,  # type: ignore[arg-type]
                      passed=passed)


def _run(root: Path, run: str, *, budget: int, final: dict[str, bool]) -> None:
    """Iteration 0 fails v2; iteration 1 (D1, promoted) gives ``final``; one hidden test passes."""
    iterations = [CompileIteration(run_id=run, spec_id="s", spec_version="1.0", iteration=0, candidate_digest="D0",
                                   promoted=True, in_effect_digest="D0", budget=budget)]
    results = [_row(run, "v1", True, scope="full"), _row(run, "v2", False, scope="full")]
    if budget:
        iterations.append(CompileIteration(run_id=run, spec_id="s", spec_version="1.0", iteration=1,
                                           parent_digest="D0", candidate_digest="D1", promoted=True,
                                           in_effect_digest="D1", budget=budget))
        results += [_row(run, t, ok, scope="full", iteration=1, digest="D1") for t, ok in final.items()]
    write_records(root, "compile_iterations", iterations, run_id=run)
    write_records(root, "compile_results", results, run_id=run)
    write_records(root, "spec_reruns", [_row(run, "h1", True, scope="suite", split="hidden")], run_id=run)
    write_records(root, "mutants", [MutantRow(run_id=run, mutant_id="M1", spec_id="s", spec_version="1.0",
                                              activated=False, activation_attempts=1)], run_id=run)


def test_compile_status_and_the_marks_it_puts_on_the_figures(tmp_path: Path) -> None:
    cfg = RunConfig(data_dir=str(tmp_path / "data"))
    root = cfg.data_path()
    _run(root, "ok", budget=4, final={"v1": True, "v2": True})
    _run(root, "stuck", budget=1, final={"v1": True, "v2": False})
    _run(root, "external", budget=0, final={})
    status = {}
    for run in ("ok", "stuck", "external"):
        m = spec_metrics(cfg, run)
        status[run] = (m["tdad_vpr_by_iteration"][-1]["compile_status"], m["tdad_hidden_pass_rate"][0]["compile_status"],
                       m["mutation_score"][0]["compile_status"])
    assert status == {"ok": ("converged",) * 3, "stuck": ("not_converged",) * 3, "external": ("not_compiled",) * 3}
    lines = summary_lines("stuck", spec_metrics(cfg, "stuck"))
    vpr = next(line for line in lines if line.startswith("- VPR"))
    assert "NOT converged: 1/2 visible tests pass after 1 iteration(s) of a budget of 1" in vpr
    for prefix in ("- HPR", "- MS"):
        assert "[compilation did not converge" in next(line for line in lines if line.startswith(prefix))
    ok = summary_lines("ok", spec_metrics(cfg, "ok"))
    assert any("— converged (all visible tests pass after 1 of 4 iterations)" in line for line in ok)
    assert not any("did not converge" in line for line in ok)


def test_a_compile_only_run_counts_the_tests_it_wrote(tmp_path: Path) -> None:
    """`adat spec compile` stops before the reruns: the counts come from spec_tests, never "0 visible, 0 hidden"."""
    from adat.spec_records import SpecAssertion, SpecTest

    cfg = RunConfig(data_dir=str(tmp_path / "data"))
    root = cfg.data_path()
    tests = [SpecTest(test_id=t, run_id="c", spec_id="s", spec_version="1.0", family=f, split=split,  # type: ignore[arg-type]
                      leaf_id="END_X", user_turns=["hi"], assertions=[SpecAssertion(kind="decision_in", clause="N1",
                                                                                    values=["OK"])])
             for t, f, split in (("v1", "MFT", "visible"), ("v2", "INV", "visible"), ("h1", "paraphrase", "hidden"))]
    write_records(root, "spec_tests", tests, run_id="c")
    write_records(root, "compile_iterations", [CompileIteration(
        run_id="c", spec_id="s", spec_version="1.0", iteration=0, candidate_digest="D0", promoted=True,
        in_effect_digest="D0", budget=8)], run_id="c")
    write_records(root, "compile_results", [_row("c", "v1", True, scope="full"), _row("c", "v2", True, scope="full")],
                  run_id="c")
    lines = summary_lines("c", spec_metrics(cfg, "c"))
    assert "- tests: 2 visible, 1 hidden" in lines
    assert "- HPR: — (the hidden tests run after compilation: `adat spec run`)" in lines
    assert any("— converged (all visible tests pass after 0 of 8 iterations)" in line for line in lines)
