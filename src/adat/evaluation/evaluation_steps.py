"""The evaluation's stages after the audit (:mod:`adat.evaluation.audit`): each reads the
suite run's tables from the warehouse, runs one stage and writes its rows back into that run,
returning an :class:`~adat.engine.stage_runner.Outcome` with counts. Each is declared in
:mod:`adat.engine.stage_registry` and run by :func:`adat.engine.stage_runner.run_stage` (a task
of ``tasks/stage_tasks.py``, or a plain call without Prefect).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, cast

from adat.config import RunConfig
from adat.engine.context import RunContext, StepResult
from adat.engine.stage_runner import Outcome
from adat.evaluation.audit import (
    LLMAuditor,
    database_of,
    executions_of,
    load_artifacts,
    uses_reference_auditor,
)
from adat.evaluation.groupings import llm_groupings, reference_groupings
from adat.evaluation.labels import Compliance, paper_label, reference_compliance
from adat.evaluation.regression import fault_ids, regression_test_ids
from adat.records import AuditLabel, BoundaryMapping, Execution, ExecutionLabel, RuleEvent, TestCase, Verdict
from adat.stages.provenance import Provenance
from adat.targets.plugins import fault_catalog

REFERENCE_LABELLER = "reference/replay"

#: whether the agent complied in an execution of a valid test (the auditor never sees the verdict)
JudgeCompliance = Callable[[TestCase, AuditLabel, Execution], tuple[Compliance, Provenance]]
#: whether a TP execution's non-compliance is caused by the variant's fault (asked for TPs only)
Attributed = Callable[[TestCase, Execution, Compliance], bool]


def supports_faults(cfg: RunConfig) -> bool:
    """Seeded faults exist for the reference agent and the llm-agent (policy flips)."""
    return cfg.target.type in ("reference", "llm-agent")


def suite_fingerprint(cfg: RunConfig, run_id: str) -> str:
    """Hash of the suite's tests and their original executions and verdicts (the audit's inputs)."""
    ctx = RunContext(cfg, run_id)
    digest = hashlib.sha256()
    originals = {e.execution_id for e in executions_of(ctx, "original")}
    for table in ("tests", "executions", "verdicts"):
        for row in sorted(ctx.read(table), key=lambda r: r.model_dump_json()):
            if table == "tests" or getattr(row, "execution_id", "") in originals:
                skip = {"duration_s"} if table == "executions" else None
                digest.update(row.model_dump_json(exclude=skip).encode())
    return digest.hexdigest()[:16]


def grouping_step(ctx: RunContext) -> Outcome:
    """``evaluation.groupings`` groupings of the valid tests' mappings."""
    cfg, run_id = ctx.cfg, ctx.run_id
    labels = cast(list[AuditLabel], ctx.read("audit_labels"))
    count = cfg.evaluation.groupings
    if uses_reference_auditor(cfg):
        rows = reference_groupings(labels, run_id, count)
    else:
        rows = llm_groupings(ctx.client, labels, run_id, count)
    ctx.write("groupings", rows)
    return Outcome()


def original_replays_step(ctx: RunContext) -> StepResult:
    """The original reference agent replayed once per suite on the messages of every valid test.

    Labelling a faulty variant's execution compares it with the original agent on the same
    messages; every fault's regression reads these (``paths['replays']``, a file in the run's
    cache named by their digest, read once per worker process) instead of replaying the
    original again. None for an LLM-audited target.
    """
    cfg, run_id = ctx.cfg, ctx.run_id
    if not uses_reference_auditor(cfg):
        return StepResult(run_id=run_id, step="original-replays")
    from adat.config import cache_dir
    from adat.evaluation.replay import Replayer, hint_messages, save_replays

    valid = {a.test_id for a in cast(list[AuditLabel], ctx.read("audit_labels")) if a.validity != "invalid"}
    messages = {tuple(hint_messages(t)) for t in cast(list[TestCase], ctx.read("tests")) if t.test_id in valid}
    replayer = Replayer.for_database(database_of(cfg), cfg.target.type)
    replays = [replayer.replay(list(m), "original") for m in sorted(messages)]
    digest = hashlib.sha256(repr(replays).encode()).hexdigest()[:16]
    path = save_replays(cache_dir(cfg) / "replays" / f"{run_id}-{digest}.pickle", replays)
    return StepResult(run_id=run_id, step="original-replays", digest=digest, counts={"replays": float(len(replays))},
                      paths={"replays": str(path)})


def labelling_step(ctx: RunContext, variant: str = "original", original_replays: list[Any] | None = None) -> Outcome:
    """TP/FP/FN/TN/INC for every execution of a valid boundary test on ``variant``.

    The labels are the variant's own parts of the run (owner ``labels.<variant>``): other
    variants' labels are never touched. Executions without a verdict get no label (counted as
    ``unlabelled``).
    """
    cfg, run_id = ctx.cfg, ctx.run_id
    tests = {t.test_id: t for t in cast(list[TestCase], ctx.read("tests"))}
    audit = {a.test_id: a for a in cast(list[AuditLabel], ctx.read("audit_labels"))}
    verdicts = {v.execution_id: v for v in cast(list[Verdict], ctx.read_variants("verdicts", [variant]))}
    compliance, attributed = (_reference_auditor(cfg, variant, original_replays)
                              if uses_reference_auditor(cfg) else _llm_auditor(ctx, variant))
    claims = statement_mappings(tests.values(), audit.values())
    labels: list[ExecutionLabel] = []
    unlabelled = 0
    for execution in executions_of(ctx, variant):
        label = audit.get(execution.test_id)
        test = tests.get(execution.test_id)
        if label is None or test is None or label.validity == "invalid":
            continue
        verdict = verdicts.get(execution.execution_id)
        if verdict is None:
            unlabelled += 1
            continue
        c, produced = compliance(test, with_broken_statements(label, verdict, claims), execution)
        value = paper_label(verdict.verdict, c.complied, c.reached)
        to_fault = variant if value == "TP" and attributed(test, execution, c) else None
        labels.append(ExecutionLabel(run_id=run_id, execution_id=execution.execution_id, test_id=test.test_id,
                                     agent_variant=variant, label=value, complied=c.complied,
                                     attributed_fault=to_fault, rationale=c.rationale, **produced.fields()))
    ctx.write("execution_labels", labels, owner=f"labels.{variant}")
    return Outcome(counts={**Counter(e.label for e in labels), "unlabelled": unlabelled,
                           "attributed": sum(1 for e in labels if e.attributed_fault)},
                   tables={"execution_labels": len(labels)}, step=f"labels:{variant}")


def statement_mappings(tests: Iterable[TestCase], audit: Iterable[AuditLabel]) -> dict[str, list[BoundaryMapping]]:
    """Each statement's boundaries: the mappings of its valid tests' audit labels, each once."""
    statement_of = {t.test_id: t.statement_id for t in tests if t.statement_id}
    out: dict[str, dict[tuple[str, str], BoundaryMapping]] = {}
    for label in audit:
        sid = statement_of.get(label.test_id)
        if sid and label.validity != "invalid":
            for m in label.mappings:
                out.setdefault(sid, {}).setdefault((m.boundary, m.side), m)
    return {sid: list(found.values()) for sid, found in out.items()}


def with_broken_statements(label: AuditLabel, verdict: Verdict,
                           claims: dict[str, list[BoundaryMapping]]) -> AuditLabel:
    """The test's audit label, plus the boundaries of the statements whose process checks failed
    its verdict (:func:`adat.stages.process_checks.checks_for` runs every statement's checks on
    every test): the failure claims those rules were broken, so whether the agent complied with
    them, and which fault broke them, is what the execution's label must decide."""
    seen = {(m.boundary, m.side) for m in label.mappings}
    extra: list[BoundaryMapping] = []
    for result in verdict.process_checks:
        for m in claims.get(result.statement_id, []) if result.outcome == "fail" else []:
            if (m.boundary, m.side) not in seen:
                seen.add((m.boundary, m.side))
                extra.append(m)
    return label.model_copy(update={"mappings": [*label.mappings, *extra]}) if extra else label


def regression_step(ctx: RunContext, fault: str, replays: StepResult | None = None) -> Outcome:
    """Run the tests mapped to ``fault`` on the faulty variant, judge and label them.

    Writes only the fault's own parts of the run (executions, verdicts, side log, labels), so
    the regressions of different faults run concurrently. ``replays``: the result of
    :func:`original_replays_step` (its file of the original agent's replays).
    """
    from adat.evaluation.replay import load_replays
    from adat.stages.execution import execution_step

    cfg, original_replays = ctx.cfg, (replays.paths.get("replays") if replays else None)
    seeded = fault_catalog(cfg.target.type).load_fault(fault)
    selected = regression_test_ids(cast(list[AuditLabel], ctx.read("audit_labels")), seeded,
                               cfg.evaluation.regression_tests)
    # always run, even with nothing selected: it replaces the fault's own executions (a re-audit
    # may select fewer tests) and touches no other variant's
    execution_step(ctx, kind="all", fault=fault, test_ids=selected)
    labelled = labelling_step(ctx, variant=fault,
                              original_replays=list(load_replays(original_replays)) if original_replays else None)
    activated = fault_activation_step(ctx, fault, selected)
    return Outcome(tables={"executions": len(selected), "mutants": 1}, step=f"regression:{fault}",
                   counts={"tests": len(selected), **labelled.counts, **activated.counts})


def fault_activation_step(ctx: RunContext, fault: str, test_ids: list[str]) -> Outcome:
    """The fault's ``mutants`` row (kind 'fault', owner ``activation.<fault>``): activated when the
    side log of its executions shows it taking effect at its rule, and the original agent's
    executions of the same tests do not (:mod:`adat.mutation.seeded_faults`)."""
    from adat.mutation import activate_fault, fault_mutant_row

    faults = fault_catalog(ctx.cfg.target.type)
    rule = faults.load_fault(fault).rule
    wanted = set(test_ids)
    variants = ("original", fault)
    sessions = {(e.agent_variant, e.session_id) for e in cast(list[Execution], ctx.read_variants("executions", variants))
                if e.test_id in wanted}
    events = [e for e in cast(list[RuleEvent], ctx.read_variants("rule_events", variants))
              if (e.agent_variant, e.session_id) in sessions]
    activation = activate_fault(fault, rule, [e for e in events if e.agent_variant == fault],
                                [e for e in events if e.agent_variant == "original"],
                                rewords=faults.rewords_rule(fault))
    ctx.write("mutants", [fault_mutant_row(ctx.run_id, fault, rule, activation)], owner=f"activation.{fault}")
    return Outcome(counts={"activated": float(activation.activated)}, step=f"activation:{fault}")


def evaluation_faults(cfg: RunConfig, requested: list[str] | None = None) -> list[str]:
    """The faults the evaluation runs (none for targets without seeded faults)."""
    return fault_ids(cfg, requested) if supports_faults(cfg) else []


def catalog_step(cfg: RunConfig, run_id: str) -> StepResult:
    """Bring the DuckDB catalog up to date so the new tables show up as views."""
    from adat.config import adat_home
    from adat.warehouse.catalog import refresh_catalog

    path = refresh_catalog(cfg.data_path(), adat_home() / "sql")
    return StepResult(run_id=run_id, step="catalog", data={"catalog": str(path)})


# --- the two auditors' judgement of an execution -----------------------------------------------
def _reference_auditor(cfg: RunConfig, variant: str,
                       original_replays: list[Any] | None = None) -> tuple[JudgeCompliance, Attributed]:
    from adat.evaluation.replay import Replayer

    replayer = Replayer.for_database(database_of(cfg), cfg.target.type)
    replayer.remember(original_replays or [])
    fault = replayer.truth.load_fault(variant) if variant != "original" else None

    def compliance(test: TestCase, audit: AuditLabel, execution: Execution) -> tuple[Compliance, Provenance]:
        judged = reference_compliance(replayer, execution, {m.boundary for m in audit.mappings}, fault)
        return judged, Provenance(produced_by=REFERENCE_LABELLER)

    return compliance, lambda _test, _execution, c: fault is not None and c.attributed


def _llm_auditor(ctx: RunContext, variant: str) -> tuple[JudgeCompliance, Attributed]:
    auditor = LLMAuditor(ctx.client, load_artifacts(ctx.cfg), ctx.run_id, ctx.cfg.target.type,
                         use_tool_trace=ctx.cfg.judge.use_tool_trace)

    def attributed(test: TestCase, execution: Execution, c: Compliance) -> bool:
        return variant != "original" and auditor.attribute(variant, test, execution, c)

    return auditor.compliance, attributed


__all__ = ["Compliance", "catalog_step", "evaluation_faults", "fault_activation_step", "grouping_step", "labelling_step",
           "original_replays_step", "regression_step", "suite_fingerprint", "supports_faults"]
