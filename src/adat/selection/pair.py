"""What a pair selector hands the transformation loop, and the interface every selector offers.

The loop is deliberately simple::

    while (pair := selector.next_pair()) is not None:
        outcome = transform_execute_and_judge(pair)          # one attempt
        selector.update(pair, applicable=outcome.applicable, verdict=outcome.verdict,
                        error=outcome.error)
    record(selector.stop_reason())

Exactly one pair is outstanding at a time: ``next_pair`` refuses to hand out another before
``update`` has reported the previous one, because every choice depends on all earlier outcomes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

#: Why a selector stopped handing out pairs.
STOP_TARGET = "target"      # n transformed tests exist
STOP_BUDGET = "budget"      # min(cap, factor * n) attempts were made
STOP_PASSES = "passes"      # max_passes passes over the blocks are complete
STOP_EMPTY = "empty"        # no statements or no instructions to pair


@dataclass(frozen=True)
class Pair:
    """One statement–instruction pair chosen for attempt ``attempt_no`` (1-based, the t of §5)."""

    attempt_no: int
    statement_id: str
    instruction_id: str
    block: int = field(metadata={"doc": "0-based index of the block of B statements in rank order"})
    pass_no: int = field(metadata={"doc": "1-based pass over the blocks"})
    scores: dict[str, Any] = field(default_factory=dict, compare=False)

    def scores_json(self) -> str:
        """The scores snapshot as JSON text, for :attr:`adat.records.Attempt.scores_json`."""
        return json.dumps(self.scores, sort_keys=True, default=float)


class StatementLike(Protocol):
    """What a selector needs of a statement (:class:`adat.records.Statement` has it)."""

    @property
    def statement_id(self) -> str: ...

    @property
    def text(self) -> str: ...


class PairSelector(Protocol):
    """Chooses statement–instruction pairs for test transformation and learns from outcomes."""

    name: str

    def next_pair(self) -> Pair | None:
        """The next untried pair, or None when a stopping rule holds (see :meth:`stop_reason`)."""
        ...

    def update(self, pair: Pair, *, applicable: bool, verdict: str | None, error: bool = False,
               reason: str | None = None) -> None:
        """Report the attempt's outcome: was a test written, and the judge's verdict on it.

        ``error``: the generator failed, so the attempt says nothing about the pair — it is
        spent (counts toward the budget) but updates no posterior and does not count toward m.
        ``reason``: for a declined pair, the kind of reason the generator gave (one of
        :data:`adat.contracts.adat2_roles.NA_REASONS`) or None when unknown; selectors that do
        not use reasons ignore it.
        """
        ...

    def stop_reason(self) -> str | None:
        """``target`` | ``budget`` | ``passes`` | ``empty`` once stopped, else None."""
        ...


@dataclass(frozen=True)
class Candidate:
    """An untried pair offered to the LLM selector, with what the run has learned so far."""

    statement_id: str
    statement_text: str
    novelty: float
    instruction_id: str
    instruction_title: str
    instruction_text: str
    attempts_with_instruction: int
    tests_with_instruction: int
    mean_reward_with_instruction: float | None
