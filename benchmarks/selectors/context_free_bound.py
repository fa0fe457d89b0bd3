"""How far a cold start can get without statement context: the run policy on instruction averages.

A reference for issue #12's cold-start bound (docs/research/selection-log.md, "Why the cold-start bound is
blocked"), not a selector. It strips each built-in world of ``run.py`` down to what a learner that
ignores *which* statement it is on faces: every attempt with instruction k is applicable with
probability r_k, the share of tonight's statements the drawn outcomes make k applicable to, and
attempts are independent. On that problem it runs

* ``uniform`` — a random instruction per attempt (as ``run.py``'s uniform ignores the statement);
* ``run τ`` — the infinitely-many-armed bandit's run policy (Berry et al. 1997): each instruction
  scores (s_k + τ)/(n_k + 1), so an untried one scores τ, the run keeps using what it has while
  its score stays at or above τ and otherwise tries a fresh instruction (ties at random). The
  best τ of the grid is picked *on the worlds it is scored on*, so its row is optimistic;
* ``knows the rates`` — always the instruction with the highest r_k (50 / max r_k on average).

and prints attempts until n tests (mean over worlds × repeats) and each row's ratio to uniform::

    python benchmarks/selectors/context_free_bound.py                      # seeds 0-19
    python benchmarks/selectors/context_free_bound.py --seed-start 1000 --seeds 200

The instruction-level information limit it shows is what ``pooled-cold-start``'s statement
context must beat to meet the bound of 0.65 × uniform.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from adat.instruction_catalog import load_instructions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from worlds import FAMILIES, make_world  # noqa: E402

TAUS = (0.55, 0.6, 0.65, 0.7, 0.75, 0.8)
BUDGET = 300  # run.py's attempt budget min(400, 6n) at n = 50


def rates(family: str, seed: int) -> np.ndarray:
    """Per instruction, the share of tonight's statements it is applicable to (drawn outcomes)."""
    return np.asarray(make_world(family, seed, load_instructions()).nights["run"].applicable.mean(axis=0))


def attempts(r: np.ndarray, tau: float | None, n: int, rng: np.random.Generator) -> int:
    """Attempts until n tests: uniform (``tau`` None) or the run policy at ``tau``."""
    succ, tried = np.zeros(len(r)), np.zeros(len(r))
    tests = t = 0
    while tests < n and t < BUDGET:
        if tau is None:
            k = int(rng.integers(len(r)))
        else:
            score = (succ + tau) / (tried + 1.0)
            k = int(rng.choice(np.flatnonzero(score >= score.max() - 1e-12)))
        ok = bool(rng.random() < r[k])
        succ[k] += ok
        tried[k] += 1
        tests += ok
        t += 1
    return t


def world_row(job: tuple[str, int, int, int]) -> list[float]:
    """Mean attempts of uniform, each τ and the rate-knower on one built-in world."""
    family, seed, n, repeats = job
    return rates_row(rates(family, seed), seed, n, repeats)


def rates_row(r: np.ndarray, seed: int, n: int, repeats: int = 5) -> list[float]:
    """Mean attempts of uniform, each τ of ``TAUS`` and the rate-knower at instruction rates ``r``
    (``repeats`` draws each, the same random numbers for every row)."""
    row = []
    for tau in (None, *TAUS):
        rngs = [np.random.default_rng([seed, rep]) for rep in range(repeats)]  # common numbers per row
        row.append(float(np.mean([attempts(r, tau, n, g) for g in rngs])))
    row.append(n / float(r.max()))
    return row


def best_run_policy(rows: list[list[float]]) -> tuple[float, float]:
    """(τ, mean attempts / uniform's) of the run policy with the fewest mean attempts over ``rows``."""
    mean = np.asarray(rows, dtype=float).mean(axis=0)
    best = int(np.argmin(mean[1:-1]))
    return TAUS[best], float(mean[1 + best] / mean[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="worlds per family (default 20)")
    ap.add_argument("--seed-start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--family", default=",".join(FAMILIES), help=f"built-in families ({', '.join(FAMILIES)})")
    ap.add_argument("--n", type=int, default=50, help="target tests n (default 50)")
    ap.add_argument("--repeats", type=int, default=5, help="independent draws per world (default 5)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    families = [f for f in args.family.split(",") if f]
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        print(f"context_free_bound.py: unknown family {', '.join(unknown)}; use {', '.join(FAMILIES)}", file=sys.stderr)
        return 2
    if args.seeds < 1 or args.repeats < 1 or args.n < 1:
        print("context_free_bound.py: --seeds, --repeats and --n must be at least 1", file=sys.stderr)
        return 2
    seeds = range(args.seed_start, args.seed_start + args.seeds)
    print(f"context-free problem, seeds {seeds.start}-{seeds.stop - 1}, n = {args.n}, {args.repeats} draws per world; "
          f"attempts until n tests (ratio to uniform)")
    names = ["uniform", *(f"run {t:g}" for t in TAUS), "knows the rates"]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for family in families:
            table = np.array(list(pool.map(world_row, [(family, s, args.n, args.repeats) for s in seeds])))
            mean = table.mean(axis=0)
            tau, ratio = best_run_policy(table.tolist())
            cells = " | ".join(f"{name} {m:.1f} ({m / mean[0]:.3f})" for name, m in zip(names, mean, strict=True))
            print(f"{family}: {cells}")
            print(f"  best run policy: run {tau:g}, {ratio:.3f} x uniform (tau picked on these worlds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
