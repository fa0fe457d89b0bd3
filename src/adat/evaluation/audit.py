"""The audit (paper §4.3, DESIGN §7): a validity label with boundary–side mappings for every test
of a run, by the reference auditor or the LLM auditor; the decision procedures are written down
in docs/auditing.md. Evaluation only: nothing here is visible to the tester.

:func:`audit_step`, the ``audit`` stage, picks the auditor: the reference auditor for a
``reference`` target, the LLM auditor (which needs an LLM in the ``auditor`` role) for any other.

**The reference auditor** needs no LLM: every policy rule of the built-in reference agent has
an id, its side log says which rule the agent evaluated on which side at which user turn, and
every rule comes from the policy, so every mapping is explicit and its passage is the rule's
policy text.

**The LLM auditor** reads the artifacts the run config names (``evaluation.artifacts``: policy
or prompt, tool code, knowledge base) — the only role allowed to — and, through
``client.structured`` with the ``auditor*`` prompts, labels each test's validity with
boundary–side mappings and supporting passages, judges whether an execution complied (without
seeing the verdict), and attributes a faulty agent's TP to its fault. Python enforces the
definitions on top of the model's answer: a passage counts only if it occurs verbatim in the
artifacts, a mapping is explicit only with such a passage, and a test is a valid boundary test
only with at least one mapping.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import Protocol, cast

from adat.config import LLMAgentTarget, RunConfig
from adat.contracts.auditor_roles import (
    PROMPT_AUDITOR,
    PROMPT_AUDITOR_ATTRIBUTION,
    PROMPT_AUDITOR_EXECUTION,
    ArtifactView,
    AttributionInput,
    AttributionOutput,
    AuditedMapping,
    AuditorInput,
    AuditorOutput,
    AuditTestView,
    ExecutionAuditInput,
    ExecutionAuditOutput,
    FaultView,
)
from adat.engine.context import RunContext
from adat.engine.stage_runner import Outcome
from adat.errors import UserError
from adat.evaluation.labels import Compliance
from adat.evaluation.replay import Replayer, agent_replies, checked_situation, hint_messages, user_messages
from adat.llm.types import LLMError, TesterLLM
from adat.records import AuditLabel, BoundaryMapping, Execution, Side, TestCase, Validity
from adat.stages.concurrency import map_in_order
from adat.stages.provenance import Provenance, call_role
from adat.stages.views import tool_trace_fields, turn_views, view

log = logging.getLogger(__name__)
NO_LLM_PROVIDERS = ("offline",)


class Auditor(Protocol):
    """What the audit step needs of an auditor (reference or LLM)."""

    def audit(self, test: TestCase, execution: Execution | None) -> AuditLabel: ...


def audit_step(ctx: RunContext) -> Outcome:
    """A validity label with boundary–side mappings for every test of the run."""
    cfg, run_id, progress = ctx.cfg, ctx.run_id, ctx.progress("audited tests")
    tests = cast(list[TestCase], ctx.read("tests"))
    first = first_by_test(executions_of(ctx, "original"))
    if uses_reference_auditor(cfg):
        auditor: Auditor = ReferenceAuditor(Replayer.for_database(database_of(cfg), cfg.target.type), run_id)
    else:
        auditor = LLMAuditor(ctx.client, load_artifacts(cfg), run_id, use_tool_trace=cfg.judge.use_tool_trace)
    labels = map_in_order(lambda test: auditor.audit(test, first.get(test.test_id)), tests, 1, progress=progress)
    ctx.write("audit_labels", labels)
    return Outcome(counts=Counter(a.validity for a in labels))


def uses_reference_auditor(cfg: RunConfig) -> bool:
    """True for the reference target; otherwise checks that an LLM plays the auditor role."""
    if cfg.target.type == "reference":
        return True
    require_llm_auditor(cfg)
    return False


def database_of(cfg: RunConfig) -> str | None:
    """The reference agent's database file of the config's target (None: the built-in one)."""
    return getattr(cfg.target, "database", None)


def executions_of(ctx: RunContext, variant: str) -> list[Execution]:
    """The run's executions on agent variant ``variant``."""
    return cast(list[Execution], ctx.read_variants("executions", [variant]))


def first_by_test(executions: list[Execution]) -> dict[str, Execution]:
    """Each test's first execution (by id: trial 1 of a repeated test)."""
    return {e.test_id: e for e in sorted(executions, key=lambda e: e.execution_id, reverse=True)}


# --- the reference auditor -------------------------------------------------------------------
PRODUCED_BY = "reference/side-log"

# Criteria wording, for tests that do not state their expected side (see criteria_side).
_DENIES = re.compile(
    r"\b(refus\w*|declin\w*|den(?:y|ies|ied)|cannot|can ?not|can't|unable|not (?:be )?(?:able|allowed|possible|"
    r"eligible|permitted)|won't|will not|must not|does not (?:cancel|change|modify|process|return|exchange|"
    r"proceed)|only|requires?|needs? to|must (?:first )?(?:verify|authenticate|provide)|verif\w+ (?:their |the "
    r"user's |your )?identity|authenticat\w*)\b", re.IGNORECASE)
_ALLOWS = re.compile(
    r"\b(done|cancel(?:s|led|ed)|(?:has|have) been|processed|completed?|updated|changed|modified|exchanged|"
    r"returned|refunded|confirm\w*|proceeds?|successfully|places?|offers? to|transfer\w*)\b", re.IGNORECASE)


def criteria_side(test: TestCase) -> Side | None:
    """The side a test's criteria expect, by a majority of their wording.

    A success criterion votes for the side its wording names (a refusal, a condition the
    request must meet, an identity check -> denied; an action done, a confirmation asked or a
    transfer -> allowed); a failure criterion votes for the other side. None on a tie.
    """
    votes = {"allowed": 0, "denied": 0}
    for criteria, flip in ((test.success_criteria, False), (test.failure_criteria, True)):
        for text in criteria:
            side = "denied" if _DENIES.search(text) else "allowed" if _ALLOWS.search(text) else None
            if side is not None:
                votes[("allowed" if side == "denied" else "denied") if flip else side] += 1
    if votes["allowed"] == votes["denied"]:
        return None
    return "allowed" if votes["allowed"] > votes["denied"] else "denied"


class ReferenceAuditor:
    """Labels tests run against the reference agent: explicit or invalid, with their mappings."""

    def __init__(self, replayer: Replayer, run_id: str) -> None:
        self.replayer = replayer
        self.run_id = run_id
        # the agent's own fact check of its initial database (its plugin's ground truth)
        self.facts = replayer.truth.fact_checker(replayer.db)

    def audit(self, test: TestCase, execution: Execution | None) -> AuditLabel:
        """The validity label of ``test``, judged on what its execution on the original agent sent.

        Without an execution (or one with no user turn) the test's step hints are replayed.
        """
        recorded = execution is not None and any(t.role == "user" for t in execution.turns)
        messages = user_messages(execution) if execution is not None and recorded else hint_messages(test)
        replay = self.replayer.replay(messages, "original")
        notes: list[str] = []
        if execution is not None and recorded and list(replay.replies) != agent_replies(execution):
            notes.append("note: replaying the execution's messages does not reproduce its replies; "
                         "the replay's side log is used")
        worded = criteria_side(test)
        expected = test.expected_side or worded
        # (a) the facts it assumes hold in the initial database
        problems = [f"(a) facts: {p}" for p in self.facts.problems(test, expected)]
        # (b) its messages reach the situation it checks
        situation = checked_situation(replay.events)
        if situation is None:
            why = f" (the session failed: {replay.error})" if replay.error else ""
            problems.append(f"(b) never reaches a policy decision: the agent evaluated no rule{why}")
        # (c) its criteria agree with the rule's outcome on the compliant original agent
        if expected is None:
            problems.append("(c) expected side unknown: expected_side is unset and the criteria name "
                            "neither a refusal nor the requested action")
        elif situation is not None and expected != situation.side:
            problems.append(f"(c) the test expects the {expected} side, but the policy puts the request on "
                            f"the {situation.side} side of {', '.join(sorted(situation.rules))} "
                            f"(user turn {situation.turn})")
        elif worded is not None and worded != expected:
            problems.append(f"(c) the criteria contradict the expected side: expected_side is {expected}, "
                            f"but most criteria describe the {worded} side")
        valid, reasons = not problems, notes + problems
        mappings: list[BoundaryMapping] = []
        if valid and situation is not None:
            passage = self.replayer.truth.rule_passage
            mappings = [BoundaryMapping(boundary=rule, side=side, explicit=True,
                                        passages=[passage(rule) or rule]) for rule, side in situation.events]
            source = "expected_side" if test.expected_side else "criteria wording"
            reasons.append(f"checked at user turn {situation.turn}: "
                           + ", ".join(f"{r} {s}" for r, s in situation.events)
                           + f"; the {source} agrees; facts hold")
        return AuditLabel(run_id=self.run_id, test_id=test.test_id,
                          validity="explicit" if valid else "invalid", reasons=reasons, mappings=mappings,
                          produced_by=PRODUCED_BY)


# --- the LLM auditor -------------------------------------------------------------------------
def require_llm_auditor(cfg: RunConfig) -> None:
    """A target other than the reference agent needs a real LLM in the auditor role."""
    provider = cfg.models.auditor.partition("/")[0]
    if provider in NO_LLM_PROVIDERS:
        raise UserError(f"{cfg.models.auditor} cannot audit a {cfg.target.type} target: only the reference "
                        "agent is audited without an LLM (from its side log)", field="models.auditor",
                        fix="set models.auditor to an LLM, e.g. openai/<model>, or evaluate a reference target")


def load_artifacts(cfg: RunConfig) -> list[ArtifactView]:
    """The artifact files of ``evaluation.artifacts`` (an llm-agent's policy when none are named)."""
    paths = [Path(p) for p in cfg.evaluation.artifacts]
    if not paths and isinstance(cfg.target, LLMAgentTarget):
        from adat.targets.plugins import fault_catalog

        paths = [Path(cfg.target.policy) if cfg.target.policy else fault_catalog(cfg.target.type).policy_path()]
    if not paths:
        raise UserError(f"the LLM auditor of a {cfg.target.type} target needs the agent's artifacts",
                        field="evaluation.artifacts", fix="list the policy or prompt, tool code and knowledge-base files")
    views = []
    for path in paths:
        if not path.is_file():
            raise UserError("artifact file not found", file=str(path), field="evaluation.artifacts",
                            fix="list existing files (paths relative to the working directory)")
        views.append(ArtifactView(name=path.name, text=path.read_text(encoding="utf-8", errors="replace")))
    return views


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


class LLMAuditor:
    """Audits tests and executions of any target from its artifacts, with the ``auditor`` role."""

    def __init__(self, client: TesterLLM, artifacts: list[ArtifactView], run_id: str, target_kind: str = "llm-agent",
                 *, use_tool_trace: bool = True) -> None:
        """``target_kind``: the target plugin whose seeded faults :meth:`attribute` reads;
        ``use_tool_trace`` (``judge.use_tool_trace``): show the reported tool calls with the turns."""
        self.use_tool_trace = use_tool_trace
        self.client = client
        self.target_kind = target_kind
        self.artifacts = artifacts
        self.run_id = run_id
        self._corpus = _norm("\n".join(a.text for a in artifacts))

    def audit(self, test: TestCase, execution: Execution | None) -> AuditLabel:
        """The validity label of ``test`` with its mappings; an auditor failure labels it invalid."""
        turns = execution.turns if execution is not None else []
        request = AuditorInput(artifacts=self.artifacts, test=view(AuditTestView, test),
                               turns=turn_views(turns),
                               ended_by=execution.ended_by if execution is not None else "not executed",
                               **tool_trace_fields(turns, self.use_tool_trace))
        try:
            out, produced = call_role(self.client, "auditor", PROMPT_AUDITOR, request, AuditorOutput)
        except LLMError as exc:
            log.warning("auditing %s failed: %s", test.test_id, exc)
            return AuditLabel(run_id=self.run_id, test_id=test.test_id, validity="invalid",
                              reasons=[f"not audited: auditor error: {exc}"])
        mappings = [self._checked(m) for m in out.mappings]
        validity, notes = self._validity(out, mappings)
        return AuditLabel(run_id=self.run_id, test_id=test.test_id, validity=validity,
                          reasons=list(out.reasons) + notes,
                          mappings=mappings if validity != "invalid" else [], **produced.fields())

    def compliance(self, test: TestCase, label: AuditLabel, execution: Execution) -> tuple[Compliance, Provenance]:
        """Whether the agent complied in ``execution`` (the auditor never sees the verdict)."""
        passages = [p for m in label.mappings for p in m.passages]
        request = ExecutionAuditInput(artifacts=self.artifacts, test=view(AuditTestView, test),
                                      passages=passages, turns=turn_views(execution.turns),
                                      ended_by=execution.ended_by,
                                      **tool_trace_fields(execution.turns, self.use_tool_trace))
        try:
            out, produced = call_role(self.client, "auditor", PROMPT_AUDITOR_EXECUTION, request, ExecutionAuditOutput)
        except LLMError as exc:
            return Compliance(reached=True, complied=None, rationale=f"cannot tell: auditor error: {exc}"), Provenance()
        complied = None if out.criterion_demands_more else out.complied
        rationale = out.rationale + (" [a criterion demands more than the artifacts require]"
                                     if out.criterion_demands_more else "")
        return Compliance(reached=out.reached, complied=complied, rationale=rationale), produced

    def attribute(self, fault_id: str, test: TestCase, execution: Execution, compliance: Compliance) -> bool:
        """Asked again with the fault's description: is the non-compliance caused by the fault?"""
        from adat.targets.plugins import fault_catalog

        fault = fault_catalog(self.target_kind).load_fault(fault_id)
        request = AttributionInput(fault=view(FaultView, fault), test=view(AuditTestView, test),
                                   turns=turn_views(execution.turns),
                                   compliance_rationale=compliance.rationale)
        try:
            out, _ = call_role(self.client, "auditor", PROMPT_AUDITOR_ATTRIBUTION, request, AttributionOutput)
        except LLMError as exc:
            log.warning("attributing %s failed: %s", execution.execution_id, exc)
            return False
        return out.attributed

    # --- the definitions, enforced ---------------------------------------------------------
    def _checked(self, mapping: AuditedMapping) -> BoundaryMapping:
        """Keep only passages found verbatim in the artifacts; explicit needs at least one."""
        found = [p for p in mapping.passages if p.strip() and _norm(p) in self._corpus]
        return BoundaryMapping(boundary=" ".join(mapping.boundary.split()), side=mapping.side,
                               explicit=mapping.explicit and bool(found), passages=found)

    @staticmethod
    def _validity(out: AuditorOutput, mappings: list[BoundaryMapping]) -> tuple[Validity, list[str]]:
        notes: list[str] = []
        if not out.facts_hold:
            notes.append("(a) an assumed fact does not hold in the initial state")
        if not out.reaches_situation:
            notes.append("(b) the messages do not reach the situation the test checks")
        if out.support == "unsupported":
            notes.append("(c) an expected behaviour follows neither from the artifacts nor from domain knowledge")
        if not mappings:
            notes.append("covers no boundary")
        if notes or out.validity == "invalid":
            return "invalid", notes
        if out.validity == "explicit" and (out.support != "artifacts" or not all(m.explicit for m in mappings)):
            notes.append("not explicit: a mapping lacks a passage found verbatim in the artifacts")
            return "valid", notes
        return out.validity, notes
