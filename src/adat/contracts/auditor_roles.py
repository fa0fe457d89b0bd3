"""What the auditor roles are given and must answer: the contract between the evaluation
(:mod:`adat.evaluation.audit`, :mod:`adat.evaluation.groupings`), the ``auditor*`` prompt
files and every provider.

The auditor is the one role that reads the agent's artifacts (policy, prompt, tool code): it
checks a test's validity and an execution's compliance in the evaluation (``adat evaluate``,
``adat regress``), not while the tester runs. The
tester roles' contract (:mod:`adat.contracts.adat2_roles`) has no field that could hold an
artifact; the offline stand-in plays no auditor role.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adat.contracts.adat2_roles import TurnView
from adat.contracts.contract_base import Contract

PROMPT_AUDITOR = "auditor"
PROMPT_AUDITOR_EXECUTION = "auditor_execution"
PROMPT_AUDITOR_ATTRIBUTION = "auditor_attribution"
PROMPT_AUDITOR_GROUPING = "auditor_grouping"


class ArtifactView(Contract):
    name: str = Field(description="file name of the artifact (policy, prompt, tool code, knowledge base)")
    text: str


class AuditTestView(Contract):
    """A test as the auditor sees it: never its kind, provenance or verdict (paper §4.3)."""

    __test__ = False
    test_id: str
    goal: str
    step_hints: list[str]
    success_criteria: list[str]
    failure_criteria: list[str]
    assumed_facts: list[str] = Field(default_factory=list)


class AuditorInput(Contract):
    artifacts: list[ArtifactView]
    test: AuditTestView
    turns: list[TurnView] = Field(description="the test's execution on the original agent, untrusted")
    ended_by: str
    tool_trace_shown: bool = Field(False, description="the target reported tool calls and judge.use_tool_trace is on")
    tool_trace: str = Field("", description="the reported tool calls, one line each by user turn (bounded)")


class AuditedMapping(Contract):
    boundary: str = Field(description="the condition that divides the requests, in a few words")
    side: Literal["allowed", "denied"] = Field(description="allowed = the agent may do what is asked")
    explicit: bool = Field(description="true when passages from the artifacts define the boundary")
    passages: list[str] = Field(default_factory=list, description="verbatim quotes from the artifacts")


class AuditorOutput(Contract):
    facts_hold: bool = Field(description="the facts the test assumes hold in the agent's initial state")
    reaches_situation: bool = Field(description="its messages lead the conversation to the situation it checks")
    support: Literal["artifacts", "domain_knowledge", "unsupported"] = Field(
        description="where every behaviour the test expects comes from")
    validity: Literal["explicit", "valid", "invalid"]
    reasons: list[str] = Field(default_factory=list)
    mappings: list[AuditedMapping] = Field(default_factory=list)


class ExecutionAuditInput(Contract):
    artifacts: list[ArtifactView]
    test: AuditTestView
    passages: list[str] = Field(description="artifact passages that support the test's criteria")
    turns: list[TurnView] = Field(description="the execution to judge, untrusted")
    ended_by: str
    tool_trace_shown: bool = Field(False, description="the target reported tool calls and judge.use_tool_trace is on")
    tool_trace: str = Field("", description="the reported tool calls, one line each by user turn (bounded)")


class ExecutionAuditOutput(Contract):
    reached: bool = Field(description="the execution got to the point where the checked behaviour was due")
    complied: bool | None = Field(description="the agent did what the artifacts require; null = cannot tell")
    criterion_demands_more: bool = Field(
        False, description="a criterion demands more than the artifacts or domain knowledge require")
    rationale: str


class FaultView(Contract):
    title: str
    description: str
    passage_before: str
    passage_after: str


class AttributionInput(Contract):
    fault: FaultView
    test: AuditTestView
    turns: list[TurnView] = Field(description="the execution on the faulty agent, untrusted")
    compliance_rationale: str


class AttributionOutput(Contract):
    attributed: bool = Field(description="the agent's non-compliance is caused by the described fault")
    rationale: str


class GroupingMappingView(Contract):
    index: int
    boundary: str
    side: Literal["allowed", "denied"]
    passages: list[str] = Field(default_factory=list)


class GroupingInput(Contract):
    grouping_no: int
    mappings: list[GroupingMappingView]


class MappingGroup(Contract):
    boundary: str = Field(description="a name for the boundary shared by the members")
    side: Literal["allowed", "denied"]
    members: list[int] = Field(description="indices of the mappings in this group")


class GroupingOutput(Contract):
    groups: list[MappingGroup]
