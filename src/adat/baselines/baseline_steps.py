"""Pipeline steps of the baselines and the selector ablation (same pattern as the AdaT2 steps in :mod:`adat.stages`).

Each comparison run starts from the discovery of an existing run: :func:`copy_source_step` copies
that run's traces (and, for the ablation, its statements, plain tests and instruction snapshot)
into the new run, so every method works on exactly the same inputs and each run's tables stand
on their own. Generated tests are then executed and judged by
:func:`adat.stages.execution.execution_step` with ``kind='agenteval'`` / ``kind='direct'``; the
ablation runs :func:`adat.stages.transformation.transformation_step` with the run config's selector.
"""

from __future__ import annotations

from typing import Literal, cast

from adat.config import SELECTOR_NAMES, RunConfig, cache_dir
from adat.engine.context import RunContext, StepResult
from adat.engine.stage_runner import Outcome
from adat.errors import UserError
from adat.records import Record, Statement, TestCase, Trace

#: what a comparison run copies from its source run: ``traces`` for the baselines (they start
#: from discovery), ``suite_inputs`` for the ablation (it starts from the ranked statements).
CopyScope = Literal["traces", "suite_inputs"]


def copy_source_step(ctx: RunContext, source_run_id: str, scope: CopyScope) -> Outcome:
    """Copy the discovery (and for ``suite_inputs`` the statements, plain tests and instructions)
    of ``source_run_id`` into this run, re-stamped with the new run id; ids are kept."""
    run_id = ctx.run_id
    traces = [t for t in cast(list[Trace], ctx.read("traces", source_run_id)) if t.kind == "discovery"]
    if not traces:
        raise UserError(f"run {source_run_id!r} has no discovery traces", field="--from",
                        fix="pass the id of a run that ran discovery (see `adat run`, data/runs/traces)")
    sessions = {t.session_id for t in traces if t.session_id}
    copied: dict[str, list[Record]] = {
        "traces": list(traces),
        "rule_events": [e for e in ctx.read("rule_events", source_run_id) if e.session_id in sessions],
    }
    if scope == "suite_inputs":
        ranked = cast(list[Statement], ctx.read("ranked_statements", source_run_id))
        if not any(s.grounded and s.rank is not None for s in ranked):
            raise UserError(f"run {source_run_id!r} has no grounded statements", field="--from",
                            fix="pass a run whose pipeline got past grounding")
        copied["statements"] = ctx.read("statements", source_run_id)
        copied["ranked_statements"] = list(ranked)
        copied["tests"] = [t for t in cast(list[TestCase], ctx.read("tests", source_run_id)) if t.kind == "plain"]
        instructions = ctx.read("instructions", source_run_id)
        if instructions:  # the source's catalog snapshot, so every selector chooses from the same one
            copied["instructions"] = instructions
    tables = {}
    for table, rows in copied.items():
        # the copy owns its parts; the instruction snapshot replaces the one start_run took
        tables[table] = ctx.write(table, [row.model_copy(update={"run_id": run_id}) for row in rows],
                                  owner="" if table == "instructions" else "copy")
    return Outcome(tables=tables, step=f"copy:{scope}", data={"source_run_id": source_run_id})


def agenteval_generation_step(ctx: RunContext) -> Outcome:
    """Mine the workflow graph of the run's discovery traces; one AgentEval test per node and edge."""
    from adat.baselines.agenteval import generate_agenteval_tests
    from adat.embeddings import Embedder

    embedder = Embedder(cache_dir(ctx.cfg))
    result = generate_agenteval_tests(ctx.cfg, ctx.client, _discovery_traces(ctx), ctx.run_id, embedder.embed)
    ctx.write("tests", result.tests, owner="agenteval")
    return Outcome(counts={"nodes": len(result.graph.nodes), "edges": len(result.graph.edges),
                              "agenteval_tests": len(result.tests), "skipped_targets": len(result.skipped)},
                      data={"skipped": result.skipped})


def direct_generation_step(ctx: RunContext) -> Outcome:
    """Direct tests from all discovery traces, in batches, until the generator says they are exhausted."""
    from adat.baselines.direct import generate_direct_tests

    result = generate_direct_tests(ctx.cfg, ctx.client, _discovery_traces(ctx), ctx.run_id)
    ctx.write("tests", result.tests, owner="direct")
    return Outcome(counts={"direct_tests": len(result.tests), "batches": result.batches,
                              "duplicates": result.duplicates},
                      data={"stop_reason": result.stop_reason, "errors": result.errors})


def ablation_priors_step(cfg: RunConfig, source_run_id: str) -> StepResult:
    """The θ priors every selector of an ablation gets: the applicability history of the runs that
    started before the source run — what its own transformation phase learned from.

    Frozen once per ablation, so no selector run learns from another's attempts, and the
    ``adat2`` run replays the source run's choices.
    """
    from adat.stages.selection_priors import earlier_attempts, history_data, run_starts

    root = cfg.data_path()
    started = run_starts(root)
    if source_run_id not in started:
        raise UserError(f"no run {source_run_id!r} in the warehouse {root}", field="--from",
                        fix="pass a run id listed in data/runs/runs (and the same --data-dir)")
    # same generator model only, errors excluded (DESIGN §5)
    history = earlier_attempts(root, str(cfg.models.generator), started, before=started[source_run_id])
    return StepResult(run_id=source_run_id, step="ablation-priors",
                      counts={"history_attempts": len(history), "history_runs": len({a.run_id for a in history})},
                      data=history_data(root, history, started))


def _discovery_traces(ctx: RunContext) -> list[Trace]:
    traces = [t for t in cast(list[Trace], ctx.read("traces")) if t.kind == "discovery"]
    if not traces:
        raise UserError(f"run {ctx.run_id!r} has no discovery traces", field="--from",
                        fix="copy them first (copy_source_step) or pass a run that ran discovery")
    return traces


def selector_names() -> list[str]:
    """Every selector a run config can name (``selector.name``), in the config's order."""
    return list(SELECTOR_NAMES)


def check_selectors(names: list[str]) -> list[str]:
    """``names`` without duplicates (order kept); an unknown or empty list is a UserError."""
    known = selector_names()
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UserError(f"unknown selector(s): {', '.join(unknown)}" if unknown else "no selector given",
                        field="--selectors", fix=f"use a comma-separated list of {', '.join(known)}")
    return list(dict.fromkeys(names))
