"""The spec-suite pipeline as steps (flow ``spec_suite``): each reads its inputs from the
warehouse and the spec files, runs one stage and writes its own tables, returning an
:class:`~adat.engine.stage_runner.Outcome` (counts, never rows); each is declared in
:mod:`adat.engine.stage_registry` and run by :func:`adat.engine.stage_runner.run_stage`.

Owners: ``spec_tests`` (tests step), ``compile_iterations`` + ``compile_results`` (compile),
``spec_reruns`` (reliability), ``mutants`` + ``mutant_results`` (mutate). A run is one spec
version; a v2 run names its v1 run (``base_run``), whose compiled prompt it starts from and
whose tests give the invariant tests (SURS).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from adat.config import RunConfig
from adat.engine.context import RunContext, StepResult
from adat.engine.stage_runner import Outcome
from adat.errors import UserError
from adat.records import CompileIteration
from adat.stages.provenance import provenance_of

SEED_START = "seed"
#: ``start`` of a run on an agent that does not read the prompt and has no seed prompt: an empty artifact
NO_PROMPT_START = "none"


def file_digest(*paths: str | Path | None) -> str:
    """Content hash of the spec / pack / artifact files a step reads (its cache key part)."""
    digest = hashlib.sha256()
    for path in paths:
        if path is None:
            continue
        p = Path(path)
        files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
        for f in files:
            digest.update(f.name.encode())
            digest.update(f.read_bytes() if f.is_file() else b"")
    return digest.hexdigest()[:16]


def _runner(cfg: RunConfig, ctx: RunContext, spec: Any, variant: str = "compiled") -> Any:
    """Run one spec test on the built spec agent (on an ``llm-agent`` target's model when the
    suite runs on one), or on any other ``target:`` when ``spec_suite.use_target``
    (:mod:`adat.tdad.target_fit`: such an agent ignores the artifact and the fixtures)."""
    from adat.tdad.runner import run_spec_test
    from adat.tdad.target_fit import target_fit

    fit = target_fit(cfg)
    target = None
    if not fit.prompt_driven:
        from adat.targets.target_factory import build_target

        target = build_target(cfg.target, cfg, client=ctx.client)

    def run(artifact: Any, test: Any, rerun: int) -> Any:
        return run_spec_test(cfg, ctx.client, spec, artifact, test, run_id=ctx.run_id, rerun=rerun,
                             agent_variant=variant, target=target, agent_model=fit.agent_model)

    return run


def _tests(ctx: RunContext, run_id: str | None = None) -> list[Any]:
    return list(ctx.read("spec_tests", run_id))


def compiled_artifact(cfg: RunConfig, run_id: str) -> Any:
    """The prompt artifact in effect after a run's last compile iteration."""
    from adat.tdad.artifact import PromptArtifact

    rows = [r for r in RunContext(cfg, run_id).read("compile_iterations") if isinstance(r, CompileIteration)]
    if not rows:
        raise UserError(f"run {run_id} has no compiled prompt", field="run",
                        fix="compile it first: adat spec compile SPEC --config FILE")
    return PromptArtifact.model_validate_json(max(rows, key=lambda r: r.iteration).artifact_json)


def tests_step(ctx: RunContext, spec_path: str) -> Outcome:
    """TestSmith: visible and hidden tests of the spec → ``spec_tests``."""
    from adat.tdad.spec_loader import load_spec
    from adat.tdad.testsmith import generate_tests

    spec = load_spec(spec_path)
    tests = generate_tests(ctx.client, spec, seed=ctx.cfg.seed, run_id=ctx.run_id)
    ctx.write("spec_tests", tests)
    return Outcome(counts={"visible": sum(t.split == "visible" for t in tests),
                              "hidden": sum(t.split == "hidden" for t in tests)})


def compile_step(ctx: RunContext, spec_path: str, start: str) -> Outcome:
    """PromptSmith from ``start`` (an agent-artifacts directory with the seed prompt, or
    ``run:<RUN_ID>`` for a compiled prompt) on the run's visible tests → compile tables."""
    from adat.contracts.tdad_clauses import clause_texts
    from adat.contracts.tdad_roles import PROMPT_PROMPTSMITH, ROLE_PROMPTSMITH
    from adat.tdad.artifact import seed_artifact
    from adat.tdad.compiler import compile_artifact, promptsmith_proposer
    from adat.tdad.spec_loader import load_spec
    from adat.tdad.target_fit import target_fit

    cfg, run_id = ctx.cfg, ctx.run_id
    spec = load_spec(spec_path)
    if start.startswith("run:"):
        artifact, label = compiled_artifact(cfg, start.removeprefix("run:")), start.removeprefix("run:")
    elif start == NO_PROMPT_START:
        from adat.tdad.artifact import PromptArtifact

        artifact, label = PromptArtifact(system_prompt="", tool_descriptions={}), NO_PROMPT_START
    else:
        artifact, label = seed_artifact(start), SEED_START
    visible = [t for t in _tests(ctx) if t.split == "visible"]
    # an agent that does not read the prompt cannot be compiled: iteration 0 alone, budget 0 (not compiled)
    budget = (cfg.spec_suite.max_iterations or spec.defaults.compile_budget.max_iterations
              if target_fit(cfg).prompt_driven else 0)
    out = compile_artifact(artifact, visible, _runner(cfg, ctx, spec, "candidate"),
                           promptsmith_proposer(ctx.client, spec), clause_text=clause_texts(spec),
                           max_iterations=budget, inner_attempts=cfg.spec_suite.inner_attempts, run_id=run_id,
                           start_label=label, workers=cfg.llm.concurrency,
                           provenance=provenance_of(ctx.client, ROLE_PROMPTSMITH, PROMPT_PROMPTSMITH))
    ctx.write("compile_iterations", out.iterations)
    ctx.write("compile_results", out.results)
    return Outcome(data={"compiled_digest": out.artifact.digest()})


def reliability_step(ctx: RunContext, spec_path: str, base_run: str | None = None,
                     base_spec_path: str | None = None) -> Outcome:
    """k reruns of every test on the compiled prompt (and, for a v2 run, one run of each v1
    invariant test, filed by its v1 verdict; :mod:`adat.tdad.evolution`) → ``spec_reruns``."""
    from adat.tdad.evolution import invariant_tests
    from adat.tdad.spec_loader import load_spec
    from adat.tdad.suite_runs import not_runnable_rows, rerun_suite

    cfg, run_id = ctx.cfg, ctx.run_id
    spec = load_spec(spec_path)
    compiled = compiled_artifact(cfg, run_id)
    k = cfg.spec_suite.reruns or spec.defaults.reliability.reruns
    run = _runner(cfg, ctx, spec)
    rows = rerun_suite(compiled, _tests(ctx), run, k=k, run_id=run_id, scope="suite", workers=cfg.llm.concurrency)
    counts = {"k": k}
    if base_run and base_spec_path:
        found = invariant_tests(_tests(ctx, base_run), load_spec(base_spec_path), spec)
        # only a test that passed on v1 (first run on the compiled v1 prompt) can be broken by v2
        passed_v1 = {r.test_id for r in ctx.read("spec_reruns", base_run)
                     if r.scope == "suite" and r.rerun == 0 and r.agent_variant == "compiled" and r.passed}
        for scope, chosen in (("invariant", [t for t in found.tests if t.test_id in passed_v1]),
                              ("invariant_v1_failed", [t for t in found.tests if t.test_id not in passed_v1])):
            rows += rerun_suite(compiled, chosen, run, k=1, run_id=run_id, scope=scope, workers=cfg.llm.concurrency)
            counts[scope] = len(chosen)
        rows += not_runnable_rows(compiled, _tests(ctx, base_run), found.not_runnable, run_id=run_id)
        counts["not_runnable"] = len(found.not_runnable)
    ctx.write("spec_reruns", rows)
    return Outcome(counts=counts)


def mutate_step(ctx: RunContext, spec_path: str, pack_path: str) -> Outcome:
    """MutationSmith per intent of the pack, activation probes, visible tests on activated mutants
    → ``mutants``, ``mutant_results``."""
    from adat.contracts.tdad_roles import PROMPT_MUTATIONSMITH, ROLE_MUTATIONSMITH
    from adat.tdad.mutate import mutant_maker, mutate_compiled
    from adat.tdad.spec_loader import load_mutation_pack, load_spec

    cfg, run_id = ctx.cfg, ctx.run_id
    spec, pack = load_spec(spec_path), load_mutation_pack(pack_path)
    compiled = compiled_artifact(cfg, run_id)
    visible = [t for t in _tests(ctx) if t.split == "visible"]
    runner_for = functools.cache(lambda digest: _runner(cfg, ctx, spec, f"mutant-{digest}"))

    def run(artifact: Any, test: Any, rerun: int) -> Any:  # the variant label names the mutant in cache tags
        return runner_for(artifact.digest())(artifact, test, rerun)

    out = mutate_compiled(compiled, pack, visible, run, mutant_maker(ctx.client, pack), run_id=run_id,
                          provenance=provenance_of(ctx.client, ROLE_MUTATIONSMITH, PROMPT_MUTATIONSMITH),
                          workers=cfg.llm.concurrency)
    ctx.write("mutants", out.mutants)
    ctx.write("mutant_results", out.results)
    return Outcome(counts={"activated": sum(m.activated for m in out.mutants)})


def start_run(cfg: RunConfig, run_id: str) -> StepResult:
    """Record the spec-suite run (status running)."""
    ctx = RunContext(cfg, run_id)
    ctx.record_run("spec_suite", "running")
    return StepResult(run_id=run_id, step="start", digest=ctx.digest, paths=ctx.paths, tables={"runs": 1})
