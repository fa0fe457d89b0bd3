"""The one wrapper every stage's step runs in, and what a step reports back.

A step is ``fn(ctx, **params) -> Outcome``: it reads through ``ctx``, runs its stage and writes
its tables through ``ctx`` (only the tables its declaration names: :mod:`adat.engine.stage_registry`).
:func:`run_stage` owns the rest, once for every stage: the context, the LLM calls made (appended
to ``llm_calls``), the tester-role failure check, and the :class:`StepResult` handed to the next
stage (the partitions written, rows per table, counts and a digest of the rows; never rows).
Around the stages, a run is started, finished or failed here too (its row in ``runs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from adat.config import RunConfig
from adat.engine.context import RunContext, StepResult
from adat.engine.stage_registry import stage
from adat.records import Run


@dataclass
class Outcome:
    """What a step reports besides the rows it wrote (the wrapper tallies those)."""

    counts: Mapping[str, float] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    #: rows per table to report instead of the tally of writes (e.g. a stage's own rows of a table)
    tables: dict[str, int] | None = None
    #: the step's label in the result (default: the stage name), e.g. ``execution:plain:original``
    step: str = ""


def run_stage(name: str, cfg: RunConfig, run_id: str, *, key: str | None = None,
              progress: Any = None, **params: Any) -> StepResult:
    """Run stage ``name``'s step on run ``run_id`` with ``params`` and close it.

    ``key``: the stage's cache key (a resumable stage resumes under it). ``progress``: makes a
    progress callback from a label (``tasks`` pass the Prefect UI's). A step that writes nothing
    of its own and hands on a :class:`StepResult` of its own making (priors, replays) returns it.
    """
    spec = stage(name)
    ctx = RunContext(cfg, run_id, stage=name, writes=spec.writes, key=key, progress_bar=progress)
    out = spec.step(ctx, **params)
    if isinstance(out, StepResult):
        return out
    # close the step: record its LLM calls, fail on a tester role beyond llm.max_failed_share
    ctx.flush_calls()
    if spec.guards_models:
        ctx.check_models(out.step or ctx.stage)
    return StepResult(run_id=ctx.run_id, step=out.step or ctx.stage, digest=ctx.digest, paths=ctx.paths,
                      tables=ctx.rows if out.tables is None else out.tables,
                      counts={k: float(v) for k, v in out.counts.items()}, data=out.data)


def start_run(cfg: RunConfig, run_id: str, flow: str, suite_run_id: str = "") -> StepResult:
    """Record the run (status running; ``suite_run_id``: the suite a run-suite run executes) and
    snapshot the instruction catalog it uses."""
    from adat.instruction_catalog import load_instructions

    ctx = RunContext(cfg, run_id)
    ctx.record_run(flow, "running", suite_run_id=suite_run_id)
    instructions = load_instructions()
    ctx.write("instructions", instructions)
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="start", tables={"runs": 1, "instructions": len(instructions)})


def finish_run(cfg: RunConfig, run_id: str, flow: str, status: str = "completed", stopped_in: str = "",
               error: str = "") -> StepResult:
    """Mark the run finished (``budget_exhausted``: ``stopped_in`` says where; ``failed``: ``error``
    is the error's one line) and bring the DuckDB catalog up to date."""
    from adat.config import adat_home
    from adat.warehouse.catalog import refresh_catalog

    ctx = RunContext(cfg, run_id)
    ctx.record_run(flow, status, stopped_in=stopped_in, error=error)
    path = refresh_catalog(ctx.root, adat_home() / "sql")
    return StepResult(digest=ctx.digest, paths=ctx.paths, run_id=run_id, step="finish", data={"catalog": str(path), "status": status})


def fail_run(cfg: RunConfig, run_id: str, flow: str, error: str) -> bool:
    """Mark the run ``failed`` with ``error`` if it is still ``running`` (a flow failed after it
    started); a run that already finished keeps its status. Returns whether the run was marked."""
    runs = cast(list[Run], RunContext(cfg, run_id).read("runs"))
    if not runs or runs[-1].status != "running":
        return False
    finish_run(cfg, run_id, flow, status="failed", error=error)
    return True
