"""Budgets: the most LLM calls, tokens and dollars a run (and each of its phases) may spend.

The one LLM client checks its :class:`BudgetMeter` before every call that would reach a
provider (cache hits are free and always served). At a limit it raises
:class:`BudgetExhausted` — not an :class:`~adat.llm.types.LLMError`, so no stage swallows it as
one failed item and no retry repeats it — and the flow records the run as ``budget_exhausted``
with the phase it stopped in, keeping every table written so far.

What a run spent before this process started comes from its ``llm_calls`` rows, so a resumed or
re-tried phase counts its earlier tries. Calls already in flight when the limit is reached still
finish (at most ``llm.concurrency`` of them), so tokens and dollars may end slightly above a limit;
the call count never does.

The phase is the pipeline stage that makes the calls (``discovery``, ``extraction``, …); the task
layer names it with :func:`phase` around each stage.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from adat.config import Budget, BudgetConfig
from adat.records import LLMCall

_PHASE: contextvars.ContextVar[str] = contextvars.ContextVar("adat_budget_phase", default="")


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """LLM clients built inside this block account their calls to phase ``name``."""
    token = _PHASE.set(name)
    try:
        yield
    finally:
        _PHASE.reset(token)


def current_phase() -> str:
    return _PHASE.get()


class BudgetExhausted(Exception):
    """A budget limit was reached; the run stops cleanly in ``phase``."""

    def __init__(self, phase: str, scope: str, measure: str, limit: float, spent: float) -> None:
        self.phase, self.scope, self.measure, self.limit, self.spent = phase, scope, measure, limit, spent
        where = "the run" if scope == "run" else f"phase {scope}"
        super().__init__(f"budget exhausted in phase {phase or '?'}: {where} reached {measure} "
                         f"{_fmt(measure, spent)} of {_fmt(measure, limit)}")


def stopped_in(exc: BudgetExhausted) -> str:
    """What the runs table records: ``transformation (run max_usd $0.0502 of $0.0500)``."""
    where = "run" if exc.scope == "run" else "phase"
    return f"{exc.phase or '?'} ({where} {exc.measure} {_fmt(exc.measure, exc.spent)} of {_fmt(exc.measure, exc.limit)})"


def _fmt(measure: str, value: float) -> str:
    return f"${value:.4f}" if measure == "max_usd" else f"{value:g}"


@dataclass
class Spend:
    calls: int = 0
    tokens: int = 0
    usd: float = 0.0

    def add(self, calls: int, tokens: int, usd: float) -> None:
        self.calls += calls
        self.tokens += tokens
        self.usd += usd

    def value(self, measure: str) -> float:
        return {"max_calls": self.calls, "max_tokens": self.tokens, "max_usd": self.usd}[measure]


def _spent(rows: Iterable[LLMCall]) -> Spend:
    total = Spend()
    for row in rows:
        if not row.cache_hit:
            total.add(1, row.input_tokens + row.output_tokens, row.cost_usd)
    return total


class BudgetMeter:
    """The run's and the current phase's spending against ``cfg.budget`` (thread-safe)."""

    def __init__(self, budget: BudgetConfig, phase_name: str, earlier: Iterable[LLMCall] = ()) -> None:
        rows = list(earlier)
        self.budget = budget
        self.phase = phase_name
        self.run = _spent(rows)
        self.in_phase = _spent(r for r in rows if r.phase == phase_name)
        self.exhausted: BudgetExhausted | None = None
        self._lock = threading.Lock()

    def _limits(self) -> list[tuple[str, Budget, Spend]]:
        out: list[tuple[str, Budget, Spend]] = [("run", self.budget, self.run)]
        own = self.budget.phases.get(self.phase)
        if own is not None:
            out.append((self.phase, own, self.in_phase))
        return out

    def reserve(self) -> None:
        """Claim one provider call, or raise :class:`BudgetExhausted` when a limit is reached."""
        with self._lock:
            for scope, limits, spend in self._limits():
                for measure in ("max_calls", "max_tokens", "max_usd"):
                    limit = getattr(limits, measure)
                    if limit is not None and spend.value(measure) >= limit:
                        self.exhausted = BudgetExhausted(self.phase, scope, measure, limit, spend.value(measure))
                        raise self.exhausted
            self.run.add(1, 0, 0.0)
            self.in_phase.add(1, 0, 0.0)

    def spend(self, tokens: int, usd: float) -> None:
        """Add what a reserved call used once it finished."""
        with self._lock:
            self.run.add(0, tokens, usd)
            self.in_phase.add(0, tokens, usd)
