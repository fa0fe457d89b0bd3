"""A small synthetic pair-selection problem with scripted outcomes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from adat.config import parse_selector
from adat.records import Instruction
from adat.selection import Pair, PairSelector, make_selector


@dataclass(frozen=True)
class Stmt:
    statement_id: str
    text: str


def statements(n: int) -> list[Stmt]:
    return [Stmt(f"s{i}", f"statement {i}") for i in range(n)]


def instructions(priors: list[float], factors: list[str] | None = None) -> list[Instruction]:
    return [Instruction(instruction_id=f"k{i}", title=f"instruction {i}", text="change it",
                        factor=(factors[i] if factors else "value"), applicability="always",
                        prior_applicability=p) for i, p in enumerate(priors)]


def embeddings(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, dim))


Outcome = Callable[[Pair], tuple[bool, str | None]]


def drive(selector: PairSelector, outcome: Outcome, limit: int = 10_000) -> list[Pair]:
    """Run the loop to the end; returns every pair handed out."""
    pairs: list[Pair] = []
    while (pair := selector.next_pair()) is not None:
        pairs.append(pair)
        applicable, verdict = outcome(pair)
        selector.update(pair, applicable=applicable, verdict=verdict)
        assert len(pairs) < limit, "selector never stopped"
    return pairs


def never_applicable(pair: Pair) -> tuple[bool, str | None]:
    return False, None


def always_pass(pair: Pair) -> tuple[bool, str | None]:
    return True, "pass"


def hashed_outcome(pair: Pair) -> tuple[bool, str | None]:
    """A deterministic outcome per pair that looks random."""
    h = sum(ord(c) * (i + 7) for i, c in enumerate(pair.statement_id + "|" + pair.instruction_id))
    if h % 3 == 0:
        return False, None
    return True, ("pass", "fail", "inconclusive")[h % 5 % 3]


def build(name: str = "adat2", *, n_statements: int = 6, priors: list[float] | None = None, n_target: int = 10,
          seed: int = 0, **cfg: object) -> PairSelector:
    sel_cfg = parse_selector({"name": name, **cfg})
    ins = instructions(priors if priors is not None else [0.9, 0.5, 0.2, 0.7])
    return make_selector(sel_cfg, statements(n_statements), ins, embeddings(n_statements), n_target, seed,
                         llm_choose=lambda cands: (cands[-1].statement_id, cands[-1].instruction_id))
