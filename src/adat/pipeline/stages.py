"""What each cached stage is: the code it runs, its prompts, what it reads and what it owns.

The registry is the single place that says which tables a stage writes (one owner per table or
partition, see docs/architecture.md), which prompt files and target artifacts change its result,
and which stages depend on it (``adat run --refresh STAGE`` reruns the stage and those).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    """One cached stage of a flow."""

    name: str
    #: ``module:function`` that does the work (its source and the adat modules it imports are hashed)
    entry: str
    #: prompt ids (``catalogs/prompts/<id>.yaml``) whose text changes the stage's result
    prompts: tuple[str, ...] = ()
    #: tables (of this run unless noted) the stage reads
    reads: tuple[str, ...] = ()
    #: tables the stage writes; it is their only writer (``llm_calls`` is append-only, shared)
    writes: tuple[str, ...] = ()
    #: stages whose output this one reads (``--refresh`` propagates along these edges)
    upstream: tuple[str, ...] = ()
    #: the stage talks to the target (its artifacts' digest is part of the key)
    uses_target: bool = False
    #: the stage reads the instruction catalog
    uses_instructions: bool = False


_P = "adat.pipeline.steps"
_E = "adat.evaluation.steps"
_B = "adat.baselines.steps"
_T = "adat.tdad.steps"

STAGES: dict[str, Stage] = {s.name: s for s in (
    Stage("discovery", f"{_P}:discovery_step", ("planner", "driver"), (), ("traces", "rule_events"),
          uses_target=True),
    Stage("extraction", f"{_P}:extraction_step", ("extractor",), ("traces",), ("statements",), ("discovery",)),
    Stage("grounding", f"{_P}:grounding_step", ("grounder",), ("statements",), ("groundings",), ("extraction",)),
    Stage("plain-generation", f"{_P}:plain_generation_step", ("generate_plain",),
          ("statements", "groundings", "traces"), ("tests[kind=plain]",), ("grounding",)),
    Stage("execution", f"{_P}:execution_step", ("judge",), ("tests",),
          ("executions[phase]", "verdicts[phase]", "rule_events[phase]"), ("plain-generation",), uses_target=True),
    # execution.task_runner dask: the execution stage as one task per test, then this write
    Stage("record-executions", "adat.pipeline.execution_map:record_executions", (), ("executions", "verdicts"),
          ("executions[phase]", "verdicts[phase]", "rule_events[phase]"), ("plain-generation",)),
    Stage("selection-priors", f"{_P}:selection_priors_step", (), ("attempts[earlier runs]", "statements[earlier runs]", "runs"), (),
          ("grounding",)),
    Stage("transformation", "adat.pipeline.transformation_step:transformation_step", ("generate_transformed", "judge", "selector"),
          ("statements", "groundings", "tests[kind=plain]", "traces", "instructions"),
          ("attempts", "tests[kind=transformed]", "executions[transformed]", "verdicts[transformed]",
           "rule_events[transformed]"),
          ("execution", "selection-priors"), uses_target=True, uses_instructions=True),
    Stage("audit", f"{_E}:audit_step", ("auditor",), ("tests", "executions[original]"), ("audit_labels",),
          ("transformation",), uses_target=True),
    Stage("groupings", f"{_E}:grouping_step", ("auditor_grouping",), ("audit_labels",), ("groupings",), ("audit",)),
    Stage("execution-labels", f"{_E}:labelling_step", ("auditor_execution", "auditor_attribution"),
          ("tests", "audit_labels", "executions", "verdicts"), ("execution_labels[variant]",), ("audit",),
          uses_target=True),
    Stage("original-replays", f"{_E}:original_replays_step", (), ("tests", "audit_labels"), (), ("audit",),
          uses_target=True),
    Stage("regression", f"{_E}:regression_step", ("judge", "auditor_execution", "auditor_attribution"),
          ("tests", "audit_labels"), ("executions[fault]", "verdicts[fault]", "rule_events[fault]",
                                      "execution_labels[fault]", "mutants[fault]"), ("audit", "original-replays"), uses_target=True),
    Stage("copy-source-run", f"{_B}:copy_source_step", (), ("traces[source]", "statements[source]"),
          ("traces", "rule_events", "statements", "groundings", "tests[kind=plain]", "instructions")),
    Stage("agenteval-generation", f"{_B}:agenteval_generation_step", ("agenteval_perturb",), ("traces",),
          ("tests[kind=agenteval]",), ("copy-source-run",)),
    Stage("direct-generation", f"{_B}:direct_generation_step", ("generate_direct",), ("traces",),
          ("tests[kind=direct]",), ("copy-source-run",)),
    # TDAD (spec-driven suites, adat.tdad): the spec, pack and seed files enter the key as the tasks' ``files``
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
    grew = True
    while grew:
        grew = False
        for s in STAGES.values():
            if s.name not in out and out.intersection(s.upstream):
                out.add(s.name)
                grew = True
    return out


def refreshes(refresh: bool | list[str] | tuple[str, ...] | None, name: str) -> bool:
    """Whether ``name`` must be recomputed: ``refresh`` is True (everything) or names it or an upstream stage."""
    if isinstance(refresh, bool) or refresh is None:
        return bool(refresh)
    return name in downstream(list(refresh))
