"""Earlier runs' attempts as the pair selector's nightly prior (DESIGN §5, docs/selection.md).

One reading for both places that need it: a run's ``selection-priors`` stage
(:func:`selection_priors_step`: the runs that started before it) and an ablation's frozen priors (the runs before its source run). Only the
attempts of this run's generator model count (another model's, or the offline stand-in's,
applicability says nothing about this one's), and no errors. What it hands on:

* ``priors`` — per instruction, (applicable, not applicable) counts: every selector's θ prior;
* ``past`` — the most recent :data:`PAST_ATTEMPTS_LIMIT` of those attempts, each as
  ``[statement text, instruction id, applicable, reason kind]``: ``pooled`` embeds the texts and
  counts each outcome as evidence for this run's statements near that one
  (:class:`adat.selection.pooled.PastAttempts`).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from adat.contracts.adat2_roles import reason_kind
from adat.engine.context import RunContext, StepResult
from adat.records import Attempt, Run, Statement

#: the most recent earlier attempts handed to ``pooled`` as neighbour evidence (a few nights' worth)
PAST_ATTEMPTS_LIMIT = 2000
#: selectors that use no history at all, and the one that uses ``past``
NO_HISTORY = frozenset({"cold-start", "pooled-cold-start"})
USES_PAST = frozenset({"pooled"})


def run_starts(root: Path) -> dict[str, datetime]:
    """Each run's start time, by run id."""
    from adat.warehouse.parquet import read_records

    return {r.run_id: r.started_at for r in cast(list[Run], read_records(root, "runs"))}


def earlier_attempts(root: Path, generator: str, started: dict[str, datetime], *,
                     before: datetime | None, exclude: str | None = None) -> list[Attempt]:
    """The attempts of runs that started before ``before`` (every other run when None), made by
    ``generator``, errors left out; ``exclude`` is a run id whose own attempts never count."""
    from adat.warehouse.parquet import read_records

    return [a for a in cast(list[Attempt], read_records(root, "attempts"))
            if a.run_id != exclude and a.generator == generator and a.outcome != "error"
            and (before is None or (a.run_id in started and started[a.run_id] < before))]


def history_data(root: Path, history: list[Attempt], started: dict[str, datetime]) -> dict[str, Any]:
    """``{"priors": ..., "past": ...}`` (the module docstring) from ``history``."""
    from adat.selection import instruction_history_priors
    from adat.warehouse.parquet import read_records

    priors = instruction_history_priors(history)
    runs = {a.run_id for a in history}
    texts = {(s.run_id, s.statement_id): s.text for s in cast(list[Statement], read_records(root, "statements"))
             if s.run_id in runs}
    floor = datetime.min.replace(tzinfo=next(iter(started.values())).tzinfo) if started else datetime.min
    recent = sorted((a for a in history if (a.run_id, a.statement_id) in texts),
                    key=lambda a: (started.get(a.run_id, floor), a.run_id, a.attempt_no))[-PAST_ATTEMPTS_LIMIT:]
    past = [[texts[(a.run_id, a.statement_id)], a.instruction_id, bool(a.applicable),
             None if a.applicable else reason_kind(a.reason)] for a in recent]
    return {"priors": {k: list(v) for k, v in priors.items()}, "past": past}


def for_selector(data: dict[str, Any], selector: str) -> dict[str, Any]:
    """What of the history ``selector`` uses (so its cache key names nothing it ignores): none
    for a cold start, the counts for every other selector, ``past`` for ``pooled`` alone."""
    if selector in NO_HISTORY:
        return {"priors": {}, "past": []}
    return data if selector in USES_PAST else {**data, "past": []}


def history_digest(data: dict[str, Any]) -> str:
    """The digest a priors step hands on: of the history it read, since it writes no rows (the
    transformation's cache key then changes whenever the history it learns from does)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def selection_priors_step(ctx: RunContext) -> StepResult:
    """Applicability history from earlier runs in the warehouse (the θ prior, and ``pooled``'s
    neighbour evidence)."""
    cfg, run_id = ctx.cfg, ctx.run_id
    if cfg.selector.name in NO_HISTORY:
        data: dict[str, Any] = for_selector({}, cfg.selector.name)
        return StepResult(digest=history_digest(data), run_id=run_id, step="priors", data=data)
    # Only runs that started before this one: a re-run of this run id must see the same prior.
    started = run_starts(ctx.root)
    history = earlier_attempts(ctx.root, str(cfg.models.generator), started, before=started.get(run_id), exclude=run_id)
    data = for_selector(history_data(ctx.root, history, started), cfg.selector.name)
    return StepResult(digest=history_digest(data), run_id=run_id, step="priors",
                      counts={"history_attempts": len(history)}, data=data)
