"""The LLM auditor for agents other than the reference agent (paper §4.3, DESIGN §7).

It reads the artifacts the run config names (``evaluation.artifacts``: policy or prompt, tool
code, knowledge base) — the only role allowed to — and, through ``client.structured`` with the
``auditor*`` prompts, labels each test's validity with boundary–side mappings and supporting
passages, judges whether an execution complied (without seeing the verdict), and attributes a
faulty agent's TP to its fault. Python enforces the definitions on top of the model's answer:
a passage counts only if it occurs verbatim in the artifacts, a mapping is explicit only with
such a passage, and a test is a valid boundary test only with at least one mapping.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

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
from adat.errors import UserError
from adat.evaluation.labels import Compliance
from adat.llm.types import LLMError, TesterLLM
from adat.records import AuditLabel, BoundaryMapping, Execution, TestCase, Validity
from adat.stages.provenance import Provenance, call_role
from adat.stages.views import tool_trace_fields, turn_views

log = logging.getLogger(__name__)
NO_LLM_PROVIDERS = ("offline",)


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


def audit_test_view(test: TestCase) -> AuditTestView:
    return AuditTestView(test_id=test.test_id, goal=test.goal, step_hints=list(test.step_hints),
                         success_criteria=list(test.success_criteria), failure_criteria=list(test.failure_criteria),
                         assumed_facts=list(test.assumed_facts))


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
        turns = turn_views(execution.turns) if execution is not None else []
        request = AuditorInput(artifacts=self.artifacts, test=audit_test_view(test), turns=turns,
                               ended_by=execution.ended_by if execution is not None else "not executed",
                               **tool_trace_fields(execution.turns if execution is not None else [],
                                                   self.use_tool_trace))
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
        request = ExecutionAuditInput(artifacts=self.artifacts, test=audit_test_view(test), passages=passages,
                                      turns=turn_views(execution.turns), ended_by=execution.ended_by,
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
        request = AttributionInput(
            fault=FaultView(title=fault.title, description=fault.description, passage_before=fault.passage_before,
                            passage_after=fault.passage_after),
            test=audit_test_view(test), turns=turn_views(execution.turns), compliance_rationale=compliance.rationale)
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
