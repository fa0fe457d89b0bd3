"""Every cached stage, declared once: its step function, prompts, the tables it reads and writes.

A declaration is all the rest of adat needs to know about a stage: ``tasks/`` makes its Prefect
task from it (name, cache policy, retries: :func:`tasks.stage_factory.stage_task`), the one
wrapper :func:`adat.engine.stage_runner.run_stage` runs its step, refuses a write to a table the
stage does not declare and closes the step (LLM calls, model failures, the
:class:`~adat.engine.context.StepResult`), the cache key (:mod:`adat.engine.fingerprint`) hashes
its code, prompts and target, and ``adat run --refresh STAGE`` follows its ``upstream`` edges.
One owner per table or partition (docs/architecture.md); ``llm_calls`` is append-only and shared.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Stage:
    """One cached stage of a flow."""

    name: str
    #: ``module:function`` of the step (``fn(ctx, **params)``); its source and the adat modules it imports are hashed
    entry: str
    #: prompt ids (``catalogs/prompts/<id>.yaml``) whose text changes the stage's result
    prompts: tuple[str, ...] = ()
    #: tables (of this run unless noted) the stage reads
    reads: tuple[str, ...] = ()
    #: tables the stage writes (its own parts of them); writing any other raises
    writes: tuple[str, ...] = ()
    #: stages whose output this one reads (``--refresh`` propagates along these edges)
    upstream: tuple[str, ...] = ()
    #: the stage talks to the target (its artifacts' digest is part of the key)
    uses_target: bool = False
    #: the stage reads the instruction catalog
    uses_instructions: bool = False
    #: the step fails when a tester role's calls failed beyond ``llm.max_failed_share``
    guards_models: bool = False
    #: the step resumes under its own cache key (it is handed the key: ``ctx.key``)
    resumable: bool = False
    #: sql/checks run after the stage's write; False for a stage that fans out concurrently
    #: (its checks run once at the join: another instance may be half-way through its writes)
    checked_alone: bool = True

    @property
    def io_bound(self) -> bool:
        """The stage calls the target or an LLM: its task retries a transient failure."""
        return self.uses_target or bool(self.prompts)

    @property
    def step(self) -> Callable[..., Any]:
        """The step function (imported on first use: declaring stages imports none of them)."""
        module, _, func = self.entry.partition(":")
        return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


_S = "adat.stages"
_E = "adat.evaluation.evaluation_steps"
_B = "adat.baselines.baseline_steps"
_T = "adat.tdad.spec_suite_steps"
#: an execution phase's tables: its own parts (owner ``execution.<kind>.<variant>``); a run-suite
#: run also gets its own copy of the suite's tests (owner ``suite``)
_PHASE = ("executions", "verdicts", "rule_events", "rejudgements", "tests")

STAGES: dict[str, Stage] = {s.name: s for s in (
    Stage("discovery", f"{_S}.discovery:discovery_step", ("planner", "driver"), (), ("traces", "rule_events"),
          uses_target=True, guards_models=True),
    Stage("extraction", f"{_S}.statements:extraction_step", ("extractor",), ("traces",), ("statements",), ("discovery",),
          guards_models=True),
    Stage("grounding", f"{_S}.statements:grounding_step", ("grounder",), ("statements",), ("ranked_statements",),
          ("extraction",), guards_models=True),
    # process checks (issue 27): statements about how the agent acts, as assertions over the tool trace
    Stage("process-checks", f"{_S}.process_checks:process_checks_step", ("process_checks",), ("ranked_statements", "traces"),
          ("process_assertions",), ("grounding",), guards_models=True),
    Stage("plain-generation", f"{_S}.statements:plain_generation_step", ("generate_plain",), ("ranked_statements", "traces"),
          ("tests",), ("grounding",), guards_models=True),
    Stage("execution", f"{_S}.execution:execution_step", ("judge",), ("tests", "process_assertions"), _PHASE,
          ("plain-generation", "process-checks"), uses_target=True, guards_models=True),
    # execution.task_runner dask: the execution stage as one task per test, then this write
    Stage("record-executions", f"{_S}.execution:record_executions", (), ("tests",), _PHASE, ("plain-generation", "process-checks"),
          guards_models=True),
    Stage("selection-priors", f"{_S}.selection_priors:selection_priors_step", (), ("attempts", "statements", "runs"), (),
          ("grounding",)),
    Stage("transformation", f"{_S}.transformation:transformation_step", ("generate_transformed", "judge", "selector"),
          ("ranked_statements", "tests", "traces", "instructions", "attempts", "stage_runs", "process_assertions"),
          ("attempts", "tests", "executions", "verdicts", "rule_events", "stage_runs"),
          ("execution", "selection-priors"), uses_target=True, uses_instructions=True, resumable=True),
    Stage("audit", "adat.evaluation.audit:audit_step", ("auditor",), ("tests", "executions"), ("audit_labels",),
          ("transformation",), uses_target=True),
    Stage("groupings", f"{_E}:grouping_step", ("auditor_grouping",), ("audit_labels",), ("groupings",), ("audit",)),
    Stage("execution-labels", f"{_E}:labelling_step", ("auditor_execution", "auditor_attribution"),
          ("tests", "audit_labels", "executions", "verdicts"), ("execution_labels",), ("audit",), uses_target=True),
    Stage("original-replays", f"{_E}:original_replays_step", (), ("tests", "audit_labels"), (), ("audit",),
          uses_target=True),
    Stage("regression", f"{_E}:regression_step", ("judge", "auditor_execution", "auditor_attribution"),
          ("tests", "audit_labels", "executions", "rule_events", "process_assertions"),
          ("executions", "verdicts", "rule_events", "rejudgements", "execution_labels", "mutants"),
          ("audit", "original-replays"), uses_target=True, guards_models=True, checked_alone=False),
    Stage("copy-source-run", f"{_B}:copy_source_step", (),
          ("traces", "rule_events", "statements", "ranked_statements", "tests", "instructions"),
          ("traces", "rule_events", "statements", "ranked_statements", "tests", "instructions")),
    Stage("agenteval-generation", f"{_B}:agenteval_generation_step", ("agenteval_perturb",), ("traces",),
          ("tests",), ("copy-source-run",)),
    Stage("direct-generation", f"{_B}:direct_generation_step", ("generate_direct",), ("traces",),
          ("tests",), ("copy-source-run",)),
    # TDAD (spec-driven suites, adat.tdad): the spec, pack and seed files enter the key through ``after``
    Stage("spec-tests", f"{_T}:tests_step", ("testsmith",), (), ("spec_tests",)),
    Stage("spec-compile", f"{_T}:compile_step", ("tdad_promptsmith",), ("spec_tests",),
          ("compile_iterations", "compile_results"), ("spec-tests",), uses_target=True),
    Stage("spec-reliability", f"{_T}:reliability_step", (), ("spec_tests", "compile_iterations"), ("spec_reruns",),
          ("spec-compile",), uses_target=True),
    Stage("spec-mutate", f"{_T}:mutate_step", ("tdad_mutationsmith",), ("spec_tests", "compile_iterations"),
          ("mutants", "mutant_results"), ("spec-compile",), uses_target=True),
)}


def stage(name: str) -> Stage:
    """The stage called ``name``; KeyError names the known ones."""
    try:
        return STAGES[name]
    except KeyError:
        raise KeyError(f"unknown stage {name!r}; known: {', '.join(STAGES)}") from None


def downstream(names: list[str] | tuple[str, ...]) -> set[str]:
    """``names`` and every stage that (transitively) reads their output."""
    out = set(names)
    for s in STAGES.values():  # declared after its upstream stages: one pass reaches every descendant
        if out.intersection(s.upstream):
            out.add(s.name)
    return out


def refreshes(refresh: bool | list[str] | tuple[str, ...] | None, name: str) -> bool:
    """Whether ``name`` must be recomputed: ``refresh`` is True (everything) or names it or an upstream stage."""
    if isinstance(refresh, bool) or refresh is None:
        return bool(refresh)
    return name in downstream(list(refresh))
