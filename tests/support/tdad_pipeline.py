"""A TDAD spec suite run through the library, without Prefect or the warehouse: TestSmith ->
PromptSmith compile loop -> MutationSmith, every role offline/heuristic -- the same functions the
spec-suite flow's tasks call (adat.tdad.spec_suite_steps), so its figures are the flow's (VPR of
the last compile iteration, intents activated) in a few seconds instead of minutes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adat.config import RunConfig
from adat.contracts.tdad_clauses import clause_texts
from adat.llm.client import LLMClient
from adat.tdad.artifact import seed_artifact
from adat.tdad.compiler import compile_artifact, promptsmith_proposer
from adat.tdad.mutate import mutant_maker, mutate_compiled
from adat.tdad.runner import run_spec_test
from adat.tdad.spec_loader import load_mutation_pack, load_spec
from adat.tdad.testsmith import generate_tests


@dataclass
class SuiteFigures:
    visible: int
    hidden: int
    vpr: list[float]  # visible pass rate of the prompt in effect after each compile iteration
    hidden_passed: int
    activated: list[str]
    not_activated: list[str]
    tests: list[Any]

    @property
    def hpr(self) -> float:
        return self.hidden_passed / self.hidden if self.hidden else 0.0


def run_suite(spec_path: Path, seed_dir: Path, pack_path: Path, tmp_path: Path, *, seed: int = 0) -> SuiteFigures:
    spec, pack = load_spec(spec_path), load_mutation_pack(pack_path)
    cfg = RunConfig(data_dir=str(tmp_path / "data"), seed=seed)
    client = LLMClient(cfg, "gen", cache_dir=tmp_path / "cache")
    tests = generate_tests(client, spec, seed=seed, run_id="gen")
    visible = [t for t in tests if t.split == "visible"]
    hidden = [t for t in tests if t.split == "hidden"]

    def run(artifact: Any, test: Any, rerun: int) -> Any:
        return run_spec_test(cfg, client, spec, artifact, test, run_id="gen", rerun=rerun)

    budget = spec.defaults.compile_budget.max_iterations
    out = compile_artifact(seed_artifact(seed_dir), visible, run, promptsmith_proposer(client, spec),
                           clause_text=clause_texts(spec), max_iterations=budget,
                           inner_attempts=cfg.spec_suite.inner_attempts, run_id="gen", start_label="seed")
    vpr: list[float] = []  # of the prompt in effect after each iteration (a candidate kept back changes nothing)
    for it in out.iterations:
        rows = [r for r in out.results if r.iteration == it.iteration and r.scope == "full"]
        vpr.append(sum(r.passed for r in rows) / len(rows) if it.promoted and rows else vpr[-1] if vpr else 0.0)
    hidden_passed = sum(run(out.artifact, t, 0).passed for t in hidden)
    mutants = mutate_compiled(out.artifact, pack, visible, run, mutant_maker(client, pack), run_id="gen").mutants
    return SuiteFigures(visible=len(visible), hidden=len(hidden), vpr=vpr, hidden_passed=hidden_passed,
                        activated=[m.mutant_id for m in mutants if m.activated],
                        not_activated=[m.mutant_id for m in mutants if not m.activated], tests=tests)
