"""Selector benchmark: pair selectors on a simulated problem with known ground truth.

Every selector of ``adat.selection`` (and an oracle) runs the real selection code on the same
simulated worlds; only the generator, runner and judge are replaced by pre-drawn outcomes. See
README.md in this folder for the model and how to read the table.

    .venv/bin/python benchmarks/selectors/run.py            # 20 seeds
    .venv/bin/python benchmarks/selectors/run.py --quick    # 5 seeds, a smoke run
"""

# ruff: noqa: E402  (the BLAS thread count must be set before numpy is imported)
from __future__ import annotations

import os

# The selectors' matrices are small: multi-threaded BLAS only adds contention (100x slower on a
# busy 2-core machine). Set before numpy loads.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from adat.config import SELECTOR_SETTINGS, parse_selector, selector_settings_model
from adat.instruction_catalog import load_instructions
from adat.records import Instruction
from adat.selection import Candidate, PairSelector, instruction_history_priors, make_selector
from adat.selection.adat2 import NoveltyOrderSelector
from adat.selection.pooled import PastAttempts

sys.path.insert(0, str(Path(__file__).resolve().parent))  # a script beside its helper modules
from context_free_bound import best_run_policy, rates_row  # noqa: E402
from worlds import (
    FAMILIES,
    MOVES,
    REASON_INSTRUCTION,
    REASON_STATEMENT,
    Night,
    WorldFile,
    load_world,
    loosen_reasons,
    make_world,
    save_world,
)

VERDICTS = ("pass", "inconclusive", "fail")
CONTEXT_FREE = "_context_free"  # run_seed's extra entry: not a selector, never a table row
REASONS = {REASON_STATEMENT: "statement", REASON_INSTRUCTION: "instruction"}  # world codes → NA_REASONS


@dataclass(frozen=True)
class SimStatement:
    statement_id: str
    text: str


def statements_of(night: Night) -> list[SimStatement]:
    return [SimStatement(f"h{i:03d}", f"statement {i}") for i in range(len(night.embeddings))]


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
    choosing = 0.0
    while True:
        started = time.perf_counter()
        pair = selector.next_pair()
        choosing += time.perf_counter() - started
        if pair is None:
            break
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
        started = time.perf_counter()
        code = 0 if applicable or night.na_reason is None else int(night.na_reason[h, k])
        selector.update(pair, applicable=applicable, verdict=verdict, reason=REASONS.get(code))
        choosing += time.perf_counter() - started
    return {"n_target": n_at_target, "attempts": attempts, "tests": tests,
            "na_share": (attempts - tests) / max(attempts, 1), "boundaries": len(boundaries),
            "top": used.most_common(1)[0][1] / attempts if attempts else 0.0,
            "pass_share": passed / max(tests, 1), "stop": selector.stop_reason(),
            "ms_per_attempt": 1000 * choosing / max(attempts, 1)}


SELECTORS = ["oracle", "average oracle", "pooled", "pooled+history", "pooled-cold-start", "adat2", "adat2+history", "cold-start",
             "static", "thompson", "ucb1", "epsilon-greedy", "exp3", "gp-bo", "llm (simulated)", "uniform"]


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
    family: str = "classes"
    world: str | None = None  # a world file instead of the built-in family
    loose_reasons: float = 0.0  # share of declines a loose tagger calls 'statement' (worlds.loosen_reasons)
    moves: str = "random"  # where a moved test lands (worlds.make_world)
    settings: tuple[tuple[str, float], ...] = ()  # selector settings every selector is made with (--set)


def job_world(job: Job) -> WorldFile:
    if job.world is not None:
        return loosen_reasons(load_world(Path(job.world)), job.loose_reasons)
    return loosen_reasons(make_world(job.family, job.seed, load_instructions(), statements=job.statements,
                                     boundaries=job.boundaries, classes=job.classes, prior_noise=job.prior_noise,
                                     class_effect=job.class_effect, moves=job.moves), job.loose_reasons)


def history_rows(name: str, night: Night, instructions: list[Instruction], kids: dict[str, int], n_target: int,
                 sel_seed: int, settings: dict[str, float] | None = None) -> tuple[list[tuple[str, bool]], PastAttempts]:
    """Last night's attempts, made by the same selector: what the nightly prior learns from
    (per-instruction counts, and for ``pooled`` each attempt with its statement's embedding)."""
    prev = make_selector(selector_config(name, settings), statements_of(night), instructions,
                         night.embeddings, n_target, sel_seed)
    rows: list[tuple[str, bool]] = []
    where: list[int] = []
    reasons: list[str | None] = []
    e_ids = {s.statement_id: i for i, s in enumerate(statements_of(night))}
    while (pair := prev.next_pair()) is not None:
        h, k = e_ids[pair.statement_id], kids[pair.instruction_id]
        ok = bool(night.applicable[h, k])
        rows.append((pair.instruction_id, ok))
        code = 0 if ok or night.na_reason is None else int(night.na_reason[h, k])
        where.append(h)
        reasons.append(REASONS.get(code))
        prev.update(pair, applicable=ok, verdict=VERDICTS[night.verdict[h, k]] if ok else None,
                    reason=REASONS.get(code))
    past = PastAttempts(np.asarray(night.embeddings)[where].reshape(len(where), -1), [r[0] for r in rows],
                        [r[1] for r in rows], reasons)
    return rows, past


def selector_config(name: str, settings: dict[str, float] | None = None) -> Any:
    """Selector ``name``'s settings with those of ``settings`` (``--set``) that it has."""
    fields = selector_settings_model(name).model_fields
    return parse_selector({**{k: v for k, v in (settings or {}).items() if k in fields}, "name": name})


def run_seed(job: Job) -> dict[str, dict[str, Any]]:
    """Every selector on one world's run night (same outcomes for all: common random numbers)."""
    world = job_world(job)
    out = run_world(world, job.names, job.n, job.seed, dict(job.settings))
    if "pooled-cold-start" in job.names and "uniform" in job.names:
        # the cold-start check's reference: the context-free run policy on this world's instruction rates
        out[CONTEXT_FREE] = {"rows": rates_row(world.nights["run"].applicable.mean(axis=0), job.seed, job.n)}
    return out


def run_world(world: WorldFile, names: Sequence[str], n_target: int, seed: int,
              settings: dict[str, float] | None = None) -> dict[str, dict[str, Any]]:
    instructions = world.instructions()
    night = world.nights["run"]
    statements = statements_of(night)
    ids = {s.statement_id: i for i, s in enumerate(statements)}
    kids = {ins.instruction_id: i for i, ins in enumerate(instructions)}
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        sel_seed = seed * 1000 + 7
        sel: PairSelector
        if name == "oracle":
            sel = OracleSelector(parse_selector({"name": "adat2"}), statements, instructions, night.embeddings, n_target,
                                 sel_seed, truth=night.p_applicable)
        elif name == "average oracle":  # each instruction's true mean rate over tonight's statements
            average = np.repeat(night.p_applicable.mean(axis=0, keepdims=True), len(statements), axis=0)
            sel = OracleSelector(parse_selector({"name": "adat2"}), statements, instructions, night.embeddings, n_target,
                                 sel_seed, truth=average)
        elif name.endswith("+history"):
            base = name.removesuffix("+history")
            rows, past = history_rows(base, world.nights["history"], instructions, kids, n_target, sel_seed, settings)
            sel = make_selector(selector_config(base, settings), statements, instructions,
                                night.embeddings, n_target, sel_seed, priors=instruction_history_priors(rows), past=past)
        elif name == "llm (simulated)":
            sel = make_selector(parse_selector({"name": "llm"}), statements, instructions, night.embeddings, n_target,
                                sel_seed, llm_choose=simulated_llm(instructions, np.random.default_rng(seed)))
        else:
            sel = make_selector(selector_config(name, settings), statements,
                                instructions, night.embeddings, n_target, sel_seed)
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
                     f"{np.mean([r['ms_per_attempt'] for r in rs]):.1f}"])
    return rows, n_means


def print_table(title: str, per_seed: list[dict[str, dict[str, Any]]], names: list[str], n: int) -> dict[str, float]:
    rows, n_means = summarise(per_seed, names, n)
    print(title)
    header = ["selector", f"N_{n} (mean ± sd)", "reached", "n/a %", "boundaries", "Top %", "pass %", "ms/attempt"]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    for line in [header, ["-" * w for w in widths], *rows]:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)) + " |")
    if {"adat2", "uniform", "oracle"} <= set(n_means):
        print(f"AdaT2 N_{n} / uniform = {n_means['adat2'] / n_means['uniform']:.2f}; "
              f"AdaT2 / oracle = {n_means['adat2'] / n_means['oracle']:.2f}")
    print_checks(per_seed, names, n_means)
    print()
    return n_means


def print_checks(per_seed: list[dict[str, dict[str, Any]]], names: list[str], n_means: dict[str, float]) -> None:
    """The issue's targets for the pooled selector, each with its measured ratio."""
    need = {"pooled", "pooled-cold-start", "pooled+history", "uniform", "oracle", "gp-bo", "static", "adat2"}
    if not need <= set(names):
        return
    def mean(name: str, key: str) -> float:
        return float(np.mean([r[name][key] for r in per_seed]))

    def ratio(a: str, b: str, key: str = "n_target") -> tuple[float, float | None]:
        """mean(a) / mean(b) over the seeds and its paired standard error (delta method; common
        random numbers make the per-seed differences far less noisy than either mean)."""
        x = np.array([r[a][key] if r[a][key] is not None else r[a]["attempts"] for r in per_seed], dtype=float)
        y = np.array([r[b][key] if r[b][key] is not None else r[b]["attempts"] for r in per_seed], dtype=float)
        value = float(x.mean() / y.mean())
        se = float(np.std(x - value * y, ddof=1) / (np.sqrt(len(x)) * y.mean())) if len(x) > 1 else None
        return value, se

    checks = [
        ("cold start <= 0.65 x uniform", ratio("pooled-cold-start", "uniform"), 0.65, "<="),
        ("catalog prior <= 1.15 x oracle", ratio("pooled", "oracle"), 1.15, "<="),
        ("fewer than gp-bo", ratio("pooled", "gp-bo"), 1.0, "<"),
        ("fewer than static", ratio("pooled", "static"), 1.0, "<"),
        ("history <= without", ratio("pooled+history", "pooled"), 1.0, "<="),
        ("boundaries >= 0.95 x adat2", ratio("pooled", "adat2", "boundaries"), 0.95, ">="),
        ("ms per attempt <= 20", (max(mean(n, "ms_per_attempt") for n in ("pooled", "pooled-cold-start",
                                                                          "pooled+history")), None), 20.0, "<="),
    ]
    ops = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b}
    for text, (value, se), bound, op in checks:
        spread = f" ± {se:.3f}" if se is not None else " " * 8
        print(f"  pooled: {text:32s} {value:6.3f}{spread}  {'ok' if ops[op](value, bound) else 'MISSED'}")
    print("  (± : the paired standard error of the ratio over the seeds)")
    if all(CONTEXT_FREE in r for r in per_seed):
        tau, cf = best_run_policy([r[CONTEXT_FREE]["rows"] for r in per_seed])
        print(f"  cold start without statement context: the best run policy on these worlds' instruction rates "
              f"needs {cf:.3f} x uniform (tau {tau:g}, tuned on them; context_free_bound.py)")


def parse_setting(text: str) -> tuple[str, float]:
    """``KEY=VALUE`` of ``--set``: a numeric selector setting; a one-line ValueError otherwise."""
    key, sep, value = text.partition("=")
    if not sep or key == "name" or not any(key in model.model_fields for model in SELECTOR_SETTINGS):
        raise ValueError(f"{text!r}: use KEY=VALUE with KEY a selector setting (adat config show-defaults)")
    try:
        return key, float(value)
    except ValueError:
        raise ValueError(f"{text!r}: {value!r} is not a number") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="number of simulated worlds per family (default 20)")
    ap.add_argument("--seed-start", type=int, default=0,
                    help="first world seed (default 0); e.g. 100 for a fresh range nothing was tuned on")
    ap.add_argument("--quick", action="store_true", help="5 seeds: a smoke run")
    ap.add_argument("--family", default=",".join(FAMILIES), help=f"built-in world families ({', '.join(FAMILIES)})")
    ap.add_argument("--world", type=Path, help="score the selectors on this world file instead (see worlds.py)")
    ap.add_argument("--write-worlds", type=Path, metavar="DIR", help="also write each built-in world to DIR")
    ap.add_argument("--statements", type=int, default=130, help="ranked statements per night")
    ap.add_argument("--n", type=int, default=50, help="target transformed tests n (N_n is reported)")
    ap.add_argument("--boundaries", type=int, default=40)
    ap.add_argument("--classes", type=int, default=8)
    ap.add_argument("--prior-noise", type=float, default=0.7,
                    help="sd (logits) of the true applicability around the catalog prior")
    ap.add_argument("--class-effect", type=float, default=1.2,
                    help="classes family: sd (logits) of an instruction's applicability across statement classes")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--selectors", default=",".join(SELECTORS), help="comma-separated subset")
    ap.add_argument("--loose-reasons", type=float, default=0.0, metavar="SHARE",
                    help="a loose tagger: this share of declines says 'statement' whatever held the pair back "
                         "(default 0: the worlds' own reasons)")
    ap.add_argument("--moves", choices=MOVES, default="random",
                    help="where a transformed test that leaves its statement's boundary lands: another boundary "
                         "of the statement's class drawn per pair (random, default) or one destination per "
                         "instruction (instruction)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="settings",
                    help="a selector setting (a selector: key of the run config, e.g. gamma=0.5) every "
                         "selector that has it is made with; repeatable")
    a = ap.parse_args(argv)
    try:
        settings = tuple(parse_setting(x) for x in a.settings)
    except ValueError as exc:
        print(f"error: --set {exc}", file=sys.stderr)
        return 2
    seeds = 5 if a.quick else a.seeds
    names = [n.strip() for n in a.selectors.split(",") if n.strip()]
    if a.world is not None:
        try:
            world = load_world(a.world)
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        groups = {f"world file {a.world} (family {world.family}, seed {world.seed})":
                  [Job(world.seed, 0, a.n, 0, 0, 0.0, 0.0, tuple(names), world=str(a.world),
                       loose_reasons=a.loose_reasons, settings=settings)]}
    else:
        families = [f.strip() for f in a.family.split(",") if f.strip()]
        unknown = sorted(set(families) - set(FAMILIES))
        if unknown:
            print(f"error: --family {','.join(unknown)}: use {', '.join(FAMILIES)}", file=sys.stderr)
            return 2
        span = f" (seeds {a.seed_start}-{a.seed_start + seeds - 1})" if a.seed_start else ""
        groups = {f"family {f}{span}": [Job(s, a.statements, a.n, a.boundaries, a.classes, a.prior_noise, a.class_effect,
                                      tuple(names), family=f, loose_reasons=a.loose_reasons, moves=a.moves,
                                      settings=settings)
                                     for s in range(a.seed_start, a.seed_start + seeds)] for f in families}
        if a.write_worlds is not None:
            a.write_worlds.mkdir(parents=True, exist_ok=True)
            for jobs in groups.values():
                for j in jobs:
                    save_world(job_world(j), a.write_worlds / f"{j.family}-{j.seed}.npz")
    started = time.perf_counter()
    k = len(load_instructions())
    print(f"{len(names)} selectors; {a.statements} statements, {k} instructions, {a.boundaries} boundaries in "
          f"{a.classes} classes; prior noise {a.prior_noise}, class effect {a.class_effect}; moves {a.moves}; "
          f"{'settings ' + ', '.join(f'{k}={v:g}' for k, v in settings) + '; ' if settings else ''}n = {a.n}, budget = "
          f"{min(400, 6 * a.n)} attempts, B = 10, m = 3, 2 passes\n")
    for title, jobs in groups.items():
        if a.workers > 1 and len(jobs) > 1:
            with ProcessPoolExecutor(a.workers) as pool:
                per_seed = list(pool.map(run_seed, jobs))
        else:
            per_seed = [run_seed(j) for j in jobs]
        print_table(f"{title}, {len(jobs)} seed(s)", per_seed, names, a.n)
        fallbacks = [r[n]["fallbacks"] for r in per_seed for n in names if r[n]["fallbacks"] is not None]
        if fallbacks:
            print(f"llm (simulated) fallbacks per run: {np.mean(fallbacks):.1f}\n")
    print(f"wall time {time.perf_counter() - started:.0f} s with {a.workers} worker(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
