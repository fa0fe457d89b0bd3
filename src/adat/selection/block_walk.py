"""The walk over blocks and passes that every selector shares (DESIGN §5).

Precisely:

* Statements (already in rank order) are cut into blocks of B; the walk starts at block 0 of
  pass 1.
* A statement is *eligible* when it is in the current block, is not set aside in this pass,
  and has at least one untried pair. A pair is tried at most once per run (across passes).
* It is set aside for the rest of the pass once it gets a transformed test, or after m
  not-applicable attempts in this pass. Each pass starts with nothing set aside and the
  not-applicable counts at zero; statements that already have a test stay in H+ (ν = 0), so
  the novelty order takes them last.
* When the current block has no eligible statement the walk moves to the next block; after the
  last block the pass ends and the next pass starts at block 0. A pass thus ends when every
  block has been visited.
* Stopping rules, checked before each choice in this order: ``target`` (n transformed tests
  exist), ``budget`` (min(cap, factor·n) attempts made), ``passes`` (max_passes passes are
  complete), plus ``empty`` when there is nothing to pair.
* u_k counts the transformed tests written with k for the current block's statements in this
  run (every pass): the reuse penalty spreads a block's tests over instructions.

Subclasses implement :meth:`BlockWalkSelector._choose` (pick a pair among eligible statements)
and, to learn, :meth:`BlockWalkSelector._learn`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from adat.config import SelectorConfig
from adat.contracts.adat2_roles import NA_REASONS
from adat.records import Instruction
from adat.selection.novelty import NoveltyTracker
from adat.selection.pair import (
    STOP_BUDGET,
    STOP_EMPTY,
    STOP_PASSES,
    STOP_TARGET,
    Pair,
    StatementLike,
)
from adat.selection.posteriors import reward_of


class BlockWalkSelector:
    """Base of every selector: blocks, passes, set-aside, novelty, stopping and bookkeeping."""

    name = "base"

    def __init__(self, cfg: SelectorConfig, statements: Sequence[StatementLike],
                 instructions: Sequence[Instruction], embeddings: np.ndarray, n_target: int,
                 seed: int = 0, *, priors: Mapping[str, tuple[float, float]] | None = None) -> None:
        if len(embeddings) != len(statements):
            raise ValueError(f"{len(embeddings)} embeddings for {len(statements)} statements")
        self.cfg = cfg
        self.statement_ids = [s.statement_id for s in statements]
        self.statement_texts = [s.text for s in statements]
        self.instructions = list(instructions)
        self.instruction_ids = [i.instruction_id for i in instructions]
        if len(set(self.statement_ids)) != len(self.statement_ids):
            raise ValueError("statement ids must be unique")
        if len(set(self.instruction_ids)) != len(self.instruction_ids):
            raise ValueError("instruction ids must be unique")
        self.n_target = n_target
        self.priors = dict(priors or {})  # instruction id -> (applicable, n/a) in earlier runs; for the selectors with a prior
        self.budget = min(cfg.max_attempts_cap, cfg.attempts_per_test * n_target)
        self.rng = np.random.default_rng(seed)
        n_s, n_k = len(statements), len(instructions)
        self.blocks = [np.arange(i, min(i + cfg.block_size, n_s)) for i in range(0, n_s, cfg.block_size)]
        self.novelty = NoveltyTracker(embeddings if n_s else np.zeros((0, 1)))
        self.tried = np.zeros((n_s, n_k), dtype=bool)
        self.set_aside = np.zeros(n_s, dtype=bool)
        self.na_in_pass = np.zeros(n_s, dtype=int)
        self.block_tests = np.zeros((len(self.blocks), n_k), dtype=int)  # u_k per block
        self.instruction_attempts = np.zeros(n_k, dtype=int)
        self.instruction_tests = np.zeros(n_k, dtype=int)
        self.instruction_reward = np.zeros(n_k)  # sum of r over tests with a verdict
        self.instruction_judged = np.zeros(n_k, dtype=int)
        self.block = 0
        self.pass_no = 1
        self.attempts = 0
        self.tests = 0
        self.errors = 0
        self.na_reason: str | None = None  # the reason kind of the outcome being learned (see update)
        self._pending: tuple[Pair, int, int] | None = None
        self._stopped: str | None = None
        self._pair_weight: Callable[[str, str], float] | None = None
        self._repeats: Callable[[str], int] | None = None

    def count_repeats(self, repeats: Callable[[str], int] | None) -> None:
        """A hook the caller may set: ``repeats(instruction_id)`` is how many of the instruction's
        tests so far expected an outcome (side and success criteria) one of its earlier tests
        expected. The transformation stage sets it; selectors that score instructions may
        penalise such an instruction (:meth:`repeated`), the others ignore it."""
        self._repeats = repeats

    def repeated(self, arms: np.ndarray) -> np.ndarray:
        """The :meth:`count_repeats` counts of each instruction in ``arms`` (0 without the hook)."""
        if self._repeats is None:
            return np.zeros(len(arms))
        return np.array([self._repeats(self.instruction_ids[k]) for k in arms], dtype=float)

    def prefer(self, pair_weight: Callable[[str, str], float] | None) -> None:
        """A hook the caller may set: ``pair_weight(statement_id, instruction_id)`` multiplies the
        score of an untried pair (1 leaves it as it is). The transformation stage uses it for
        both sides of a boundary: pairs that can move a statement's request to the side its tests
        do not cover yet weigh more. Selectors that score instructions consult it
        (:meth:`weights`); the others ignore it."""
        self._pair_weight = pair_weight

    def weights(self, h: int, arms: np.ndarray) -> np.ndarray:
        """The :meth:`prefer` weights of statement ``h`` paired with each instruction in ``arms``."""
        if self._pair_weight is None:
            return np.ones(len(arms))
        sid = self.statement_ids[h]
        return np.array([self._pair_weight(sid, self.instruction_ids[k]) for k in arms], dtype=float)

    # -- the PairSelector interface -------------------------------------------------------
    def next_pair(self) -> Pair | None:
        if self._pending is not None:
            raise RuntimeError("update() the previous pair before asking for the next one")
        if self._stopped is not None:
            return None
        eligible = self._eligible_or_stop()
        if eligible is None:
            return None
        t = self.attempts + 1
        h, k, scores = self._choose(eligible, t)
        if self.tried[h, k] or h not in eligible:
            raise RuntimeError(f"{self.name} chose a tried or ineligible pair ({h}, {k})")
        self.tried[h, k] = True
        pair = Pair(attempt_no=t, statement_id=self.statement_ids[h], instruction_id=self.instruction_ids[k],
                    block=self.block, pass_no=self.pass_no, scores={"selector": self.name, **scores})
        self._pending = (pair, h, k)
        return pair

    def update(self, pair: Pair, *, applicable: bool, verdict: str | None, error: bool = False,
               reason: str | None = None) -> None:
        if self._pending is None or self._pending[0] != pair:
            raise RuntimeError("update() must report the pair the last next_pair() returned")
        if reason is not None and (applicable or reason not in NA_REASONS):
            raise ValueError(f"reason {reason!r}: only a declined pair has one, one of {', '.join(NA_REASONS)}")
        self.na_reason = reason  # read by a subclass's _learn (None: none given)
        _, h, k = self._pending
        if not applicable and verdict is not None:
            raise ValueError("a not-applicable attempt has no verdict")
        if error and applicable:
            raise ValueError("an attempt that wrote a test is not an error")
        reward = reward_of(verdict)
        self._pending = None
        self.attempts += 1
        if error:
            # The generator failed: no evidence about the pair. It uses up an attempt (the
            # budget bounds a failing endpoint) and stays tried, but moves no posterior and
            # does not count toward m.
            self.errors += 1
            return
        self.instruction_attempts[k] += 1
        if applicable:
            self.tests += 1
            self.instruction_tests[k] += 1
            self.novelty.add(h)
            self.set_aside[h] = True
            self.block_tests[self.block, k] += 1
            if reward is not None:
                self.instruction_reward[k] += reward
                self.instruction_judged[k] += 1
        else:
            self.na_in_pass[h] += 1
            if self.na_in_pass[h] >= self.cfg.max_not_applicable:
                self.set_aside[h] = True
        self._learn(h, k, applicable, reward)

    def stop_reason(self) -> str | None:
        return self._stopped

    # -- for subclasses ---------------------------------------------------------------------
    def _choose(self, eligible: np.ndarray, t: int) -> tuple[int, int, dict[str, Any]]:
        """Pick (statement index, instruction index, scores) among untried pairs of ``eligible``."""
        raise NotImplementedError

    def _learn(self, h: int, k: int, applicable: bool, reward: float | None) -> None:
        """Learn from an outcome; the default learns nothing."""

    def untried(self, h: int) -> np.ndarray:
        """Instruction indices not yet tried with statement ``h``."""
        return np.flatnonzero(~self.tried[h])

    # -- the walk ---------------------------------------------------------------------------
    def _eligible_or_stop(self) -> np.ndarray | None:
        if not self.blocks or not self.instruction_ids:
            self._stopped = STOP_EMPTY
            return None
        while True:
            reason = self._stopping_rule()
            if reason is not None:
                self._stopped = reason
                return None
            members = self.blocks[self.block]
            open_ = members[~self.set_aside[members] & ~self.tried[members].all(axis=1)]
            if len(open_):
                return open_
            self.block += 1
            if self.block == len(self.blocks):
                self.block = 0
                self.pass_no += 1
                self.set_aside[:] = False
                self.na_in_pass[:] = 0

    def _stopping_rule(self) -> str | None:
        if self.tests >= self.n_target:
            return STOP_TARGET
        if self.attempts >= self.budget:
            return STOP_BUDGET
        if self.pass_no > self.cfg.max_passes:
            return STOP_PASSES
        return None
