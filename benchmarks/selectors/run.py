"""Selector benchmark: pair selectors on a simulated problem with known ground truth.

Every selector of ``adat.selection`` (and an oracle) runs the real selection code on the same
simulated worlds; only the generator, runner and judge are replaced by pre-drawn outcomes. See
README.md in this folder for the model and how to read the table.

    .venv/bin/python benchmarks/selectors/run.py            # 20 seeds
    .venv/bin/python benchmarks/selectors/run.py --quick    # 5 seeds, a smoke run
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from adat.config import SelectorConfig
from adat.instruction_catalog import load_instructions
from adat.records import Instruction
from adat.selection import Candidate, PairSelector, instruction_history_priors, make_selector
from adat.selection.adat2 import NoveltyOrderSelector

DIM = 384
VERDICTS = ("pass", "inconclusive", "fail")
#: Share of a factor's transformed tests that stay on the statement's own boundary; the rest
#: reach another boundary of the same statement class (the other side / another boundary of §3.3).
STAY_ON_BOUNDARY = {"wording": 0.95, "social": 0.85, "channel": 0.7, "confirmation": 0.6, "sequence": 0.6}
STAY_DEFAULT = 0.45


@dataclass(frozen=True)
class SimStatement:
    statement_id: str
    text: str


@dataclass
class World:
    """What stays fixed across nights: boundaries, statement classes, the instructions' truth."""

    class_dirs: np.ndarray      # (C, DIM) unit vectors: the topic of a statement class
    boundary_dirs: np.ndarray   # (NB, DIM) unit vectors: the wording of a boundary
    boundary_class: np.ndarray  # (NB,) class of each boundary
    boundary_weight: np.ndarray  # (NB,) how often discovery yields statements about it (Zipf)
    base_logit: np.ndarray      # (K,) true applicability of each instruction, logit scale
    class_effect: np.ndarray    # (K, C) per-class deviation of applicability, logit scale
    pass_rate: np.ndarray       # (K,) share of an instruction's tests that pass
    stay: np.ndarray            # (K,) share of tests that keep the statement's boundary


@dataclass
class Night:
    """One run's ranked statements and every pair's pre-drawn outcome."""

    statements: list[SimStatement]
    embeddings: np.ndarray      # (S, DIM)
    p_applicable: np.ndarray    # (S, K) true applicability probability
    applicable: np.ndarray      # (S, K) bool
    verdict: np.ndarray         # (S, K) index into VERDICTS
    covered: np.ndarray         # (S, K) boundary a transformed test would cover


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 0.01, 0.99)
    return np.log(p / (1 - p))


def make_world(rng: np.random.Generator, instructions: Sequence[Instruction], n_boundaries: int,
               n_classes: int, prior_noise: float = 0.7, class_effect: float = 1.2) -> World:
    prior = np.array([i.prior_applicability for i in instructions])
    k = len(instructions)
    return World(
        class_dirs=_unit(rng.normal(size=(n_classes, DIM))),
        boundary_dirs=_unit(rng.normal(size=(n_boundaries, DIM))),
        boundary_class=rng.integers(n_classes, size=n_boundaries),
        boundary_weight=(w := 1.0 / np.arange(1, n_boundaries + 1) ** 0.8) / w.sum(),
        # The catalog prior is informative but off by ~prior_noise logits per instruction.
        base_logit=_logit(prior) + rng.normal(0.0, prior_noise, size=k),
        class_effect=rng.normal(0.0, class_effect, size=(k, n_classes)),
        pass_rate=rng.beta(6.0, 2.0, size=k),
        stay=np.array([STAY_ON_BOUNDARY.get(i.factor, STAY_DEFAULT) for i in instructions]),
    )


def make_night(world: World, rng: np.random.Generator, n_statements: int) -> Night:
    boundary = rng.choice(len(world.boundary_weight), size=n_statements, p=world.boundary_weight)
    klass = world.boundary_class[boundary]
    noise = _unit(rng.normal(size=(n_statements, DIM)))
    # cos ≈ 0.8 within a boundary, ≈ 0.35 within a class, ≈ 0 otherwise.
    emb = _unit(0.6 * world.class_dirs[klass] + 0.7 * world.boundary_dirs[boundary] + 0.45 * noise)
    logits = world.base_logit[None, :] + world.class_effect[:, klass].T
    p_app = 1.0 / (1.0 + np.exp(-logits))
    s, k = p_app.shape
    passed = rng.random((s, k)) < world.pass_rate[None, :]
    verdict = np.where(passed, 0, np.where(rng.random((s, k)) < 0.4, 1, 2))
    covered = np.repeat(boundary[:, None], k, axis=1)
    moves = rng.random((s, k)) >= world.stay[None, :]
    for i, j in zip(*np.nonzero(moves), strict=True):
        same_class = np.flatnonzero((world.boundary_class == klass[i]) & (np.arange(len(world.boundary_class))
                                                                          != boundary[i]))
        if len(same_class):
            covered[i, j] = rng.choice(same_class)
    statements = [SimStatement(f"h{i:03d}", f"statement {i}") for i in range(n_statements)]
    return Night(statements, emb, p_app, rng.random((s, k)) < p_app, verdict, covered)


class OracleSelector(NoveltyOrderSelector):
    """Novelty order, and the instruction with the highest TRUE applicability for the statement."""

    name = "oracle"

    def __init__(self, *args: Any, truth: np.ndarray, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.truth = truth

    def _choose_instruction(self, h: int, arms: np.ndarray, t: int) -> tuple[int, dict[str, Any]]:
        values = self.truth[h, arms]
        best = np.flatnonzero(values == values.max())
        return int(arms[best[self.rng.integers(len(best))]]), {}


def simulated_llm(instructions: Sequence[Instruction], rng: np.random.Generator,
                  invalid_share: float = 0.05) -> Callable[[list[Candidate]], tuple[str, str] | None]:
    """A stand-in for the LLM selector's model (NOT a model): a noisy greedy choice by the catalog
    prior smoothed with the run's observed applicability; answers an invalid pair 5% of the time."""
    prior = {i.instruction_id: i.prior_applicability for i in instructions}

    def choose(cands: list[Candidate]) -> tuple[str, str] | None:
        if rng.random() < invalid_share:
            return ("no-such-statement", cands[0].instruction_id)
        scores = [(c.tests_with_instruction + 2 * prior[c.instruction_id]) / (c.attempts_with_instruction + 2)
                  + 0.3 * c.novelty + rng.gumbel() * 0.05 for c in cands]
        best = cands[int(np.argmax(scores))]
        return best.statement_id, best.instruction_id

    return choose


def run_once(selector: PairSelector, night: Night, ids: dict[str, int], kids: dict[str, int],
             n_target: int) -> dict[str, Any]:
    attempts, tests, n_at_target = 0, 0, None
    used: Counter[str] = Counter()
    boundaries: set[int] = set()
    passed = 0
    while (pair := selector.next_pair()) is not None:
        h, k = ids[pair.statement_id], kids[pair.instruction_id]
        attempts += 1
        used[pair.instruction_id] += 1
        applicable = bool(night.applicable[h, k])
        verdict = VERDICTS[night.verdict[h, k]] if applicable else None
        if applicable:
            tests += 1
            boundaries.add(int(night.covered[h, k]))
            passed += verdict == "pass"
            if tests == n_target:
                n_at_target = attempts
        selector.update(pair, applicable=applicable, verdict=verdict)
    return {"n_target": n_at_target, "attempts": attempts, "tests": tests,
            "na_share": (attempts - tests) / max(attempts, 1), "boundaries": len(boundaries),
            "top": used.most_common(1)[0][1] / attempts if attempts else 0.0,
            "pass_share": passed / max(tests, 1), "stop": selector.stop_reason()}


SELECTORS = ["oracle", "adat2", "adat2+history", "cold-start", "static", "thompson", "ucb1", "epsilon-greedy",
             "exp3", "gp-bo", "llm (simulated)", "uniform"]


@dataclass(frozen=True)
class Job:
    seed: int
    statements: int
    n: int
    boundaries: int
    classes: int
    prior_noise: float
    class_effect: float
    names: tuple[str, ...]


def run_seed(job: Job) -> dict[str, dict[str, Any]]:
    """Every selector on one seed's world and night (same outcomes for all: common random numbers)."""
    seed, n_statements, n_target, names = job.seed, job.statements, job.n, job.names
    instructions = load_instructions()
    rng = np.random.default_rng(seed)
    world = make_world(rng, instructions, job.boundaries, job.classes, job.prior_noise, job.class_effect)
    night = make_night(world, rng, n_statements)
    ids = {s.statement_id: i for i, s in enumerate(night.statements)}
    kids = {ins.instruction_id: i for i, ins in enumerate(instructions)}
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        sel_seed = seed * 1000 + 7
        cfg = SelectorConfig(name="adat2")
        sel: PairSelector
        if name == "oracle":
            sel = OracleSelector(cfg, night.statements, instructions, night.embeddings, n_target, sel_seed,
                                 truth=night.p_applicable)
        elif name == "adat2+history":
            # Last night's attempts (another night of the same world) become this night's prior.
            earlier = make_night(world, np.random.default_rng(seed + 10_000), n_statements)
            prev = make_selector(cfg, earlier.statements, instructions, earlier.embeddings, n_target, sel_seed)
            rows: list[tuple[str, bool]] = []
            e_ids = {s.statement_id: i for i, s in enumerate(earlier.statements)}
            while (pair := prev.next_pair()) is not None:
                ok = bool(earlier.applicable[e_ids[pair.statement_id], kids[pair.instruction_id]])
                rows.append((pair.instruction_id, ok))
                v = VERDICTS[earlier.verdict[e_ids[pair.statement_id], kids[pair.instruction_id]]] if ok else None
                prev.update(pair, applicable=ok, verdict=v)
            sel = make_selector(cfg, night.statements, instructions, night.embeddings, n_target, sel_seed,
                                priors=instruction_history_priors(rows))
        elif name == "llm (simulated)":
            sel = make_selector(SelectorConfig(name="llm"), night.statements, instructions, night.embeddings,
                                n_target, sel_seed, llm_choose=simulated_llm(instructions, np.random.default_rng(seed)))
        else:
            sel = make_selector(SelectorConfig.model_validate({"name": name}), night.statements, instructions,
                                night.embeddings, n_target, sel_seed)
        started = time.perf_counter()
        results[name] = run_once(sel, night, ids, kids, n_target)
        results[name]["seconds"] = time.perf_counter() - started
        results[name]["fallbacks"] = getattr(sel, "fallbacks", None)
    return results


def summarise(per_seed: list[dict[str, dict[str, Any]]], names: list[str], n_target: int) -> tuple[list[list[str]], dict[str, float]]:
    rows, n_means = [], {}
    for name in names:
        rs = [r[name] for r in per_seed]
        # A run that never reaches n tests counts with all its attempts (a lower bound on N_n).
        n = np.array([r["n_target"] if r["n_target"] is not None else r["attempts"] for r in rs], dtype=float)
        reached = sum(r["n_target"] is not None for r in rs)
        n_means[name] = float(n.mean())
        rows.append([name, f"{n.mean():.1f} ± {n.std(ddof=1) if len(n) > 1 else 0:.1f}", f"{reached}/{len(rs)}",
                     f"{100 * np.mean([r['na_share'] for r in rs]):.1f}",
                     f"{np.mean([r['boundaries'] for r in rs]):.1f}",
                     f"{100 * np.mean([r['top'] for r in rs]):.1f}",
                     f"{100 * np.mean([r['pass_share'] for r in rs]):.1f}",
                     f"{np.mean([r['seconds'] for r in rs]):.2f}"])
    return rows, n_means


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="number of simulated worlds (default 20)")
    ap.add_argument("--quick", action="store_true", help="5 seeds: a smoke run")
    ap.add_argument("--statements", type=int, default=130, help="ranked statements per night")
    ap.add_argument("--n", type=int, default=50, help="target transformed tests n (N_n is reported)")
    ap.add_argument("--boundaries", type=int, default=40)
    ap.add_argument("--classes", type=int, default=8)
    ap.add_argument("--prior-noise", type=float, default=0.7,
                    help="sd (logits) of the true applicability around the catalog prior")
    ap.add_argument("--class-effect", type=float, default=1.2,
                    help="sd (logits) of an instruction's applicability across statement classes")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--selectors", default=",".join(SELECTORS), help="comma-separated subset")
    a = ap.parse_args(argv)
    seeds = 5 if a.quick else a.seeds
    names = [n.strip() for n in a.selectors.split(",") if n.strip()]
    jobs = [Job(s, a.statements, a.n, a.boundaries, a.classes, a.prior_noise, a.class_effect, tuple(names))
            for s in range(seeds)]
    started = time.perf_counter()
    if a.workers > 1:
        with ProcessPoolExecutor(a.workers) as pool:
            per_seed = list(pool.map(run_seed, jobs))
    else:
        per_seed = [run_seed(j) for j in jobs]
    rows, n_means = summarise(per_seed, names, a.n)
    k = len(load_instructions())
    print(f"{seeds} seeds x {len(names)} selectors; {a.statements} statements, {k} instructions, "
          f"{a.boundaries} boundaries in {a.classes} classes; prior noise {a.prior_noise}, class effect "
          f"{a.class_effect}; n = {a.n}, budget = "
          f"{min(400, 6 * a.n)} attempts, B = 10, m = 3, 2 passes\n")
    header = ["selector", f"N_{a.n} (mean ± sd)", "reached", "n/a %", "boundaries", "Top %", "pass %", "s/run"]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    for line in [header, ["-" * w for w in widths], *rows]:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)) + " |")
    if {"adat2", "uniform", "oracle"} <= set(n_means):
        print(f"\nAdaT2 N_{a.n} / uniform N_{a.n} = {n_means['adat2'] / n_means['uniform']:.2f}; "
              f"AdaT2 / oracle = {n_means['adat2'] / n_means['oracle']:.2f}")
    fallbacks = [r[n]["fallbacks"] for r in per_seed for n in names if r[n]["fallbacks"] is not None]
    if fallbacks:
        print(f"llm (simulated) fallbacks per run: {np.mean(fallbacks):.1f}")
    print(f"wall time {time.perf_counter() - started:.0f} s with {a.workers} worker(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
