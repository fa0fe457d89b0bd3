"""The TDAD spec shape as pydantic models (DESIGN §9; the shape of ``benchmarks/tdad/specs``).

A spec describes one agent: its tools (JSON-Schema input and output, failure modes, retry
policy), prioritised policies, the response contract of the ``respond`` tool, a decision tree
(nodes with requirements and ``when`` -> ``next`` branches), guidance for the test generator and
run defaults (reliability reruns, compile budget, limits).

Where the shape is fixed the models forbid unknown keys, so a misspelt key is an error naming
its path. Free-form guidance written for the test generator (``test_guidance``,
``testing_patterns``, node requirement prose) is kept as data and passed on, never interpreted.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import ConfigDict, Field, model_validator

from adat.contracts.contract_base import Contract

RESPOND_TOOL = "respond"
HIDDEN_FAMILIES = ("paraphrase", "boundary_values", "tool_output_metamorphic")


class RetryPolicy(Contract):
    retries: int = Field(0, ge=0, description="how often a failed call may be retried")
    on: list[str] = Field(default_factory=list, description="failure modes that are retried")

    @model_validator(mode="before")
    @classmethod
    def _on_key(cls, data: Any) -> Any:
        # YAML 1.1 reads an unquoted ``on:`` key as the boolean True.
        if isinstance(data, dict) and True in data and "on" not in data:
            data = {("on" if k is True else k): v for k, v in data.items()}
        return data


class ToolSpec(Contract):
    name: str = Field(description="the function name the agent calls")
    description: str = Field("", description="what the tool does, as the spec author wrote it")
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}},
                                         description="JSON Schema of the arguments")
    output_schema: dict[str, Any] = Field(default_factory=dict, description="JSON Schema of the result")
    failure_modes: list[str] = Field(default_factory=list, description="e.g. timeout, not_found, rate_limited")
    retry_policy: RetryPolicy = Field(default_factory=RetryPolicy)

    def input_properties(self) -> dict[str, Any]:
        props = self.input_schema.get("properties") or {}
        return props if isinstance(props, dict) else {}

    def decision_enum(self) -> list[str]:
        """The ``decision`` enum of a respond tool's arguments (empty for other tools)."""
        decision = self.input_properties().get("decision") or {}
        values = decision.get("enum") if isinstance(decision, dict) else None
        return [str(v) for v in values] if isinstance(values, list) else []


class Enforcement(Contract):
    type: Literal["hard", "soft"] = "hard"


class Policy(Contract):
    id: str = Field(description="clause id tests cite, e.g. P2_AUTH_GATE")
    priority: int = Field(0, description="higher wins when policies conflict")
    text: str
    enforcement: Enforcement = Field(default_factory=Enforcement)
    test_guidance: dict[str, Any] | None = Field(None, description="free-form hints for the test generator")


class ResponseContract(Contract):
    required_json_fields: list[str] = Field(default_factory=list)
    optional_json_fields: list[str] = Field(default_factory=list)
    decision_enum: list[str] = Field(default_factory=list)
    field_semantics: dict[str, Any] | None = Field(None, description="free-form field meanings and test hints")

    def fields(self) -> list[str]:
        return [*self.required_json_fields, *self.optional_json_fields]


class Branch(Contract):
    when: str = Field(description="the condition, as the spec author wrote it")
    next: str = Field(description="node id the branch leads to")
    description: str = ""


class Requirements(Contract):
    """What a node demands; the structured keys are typed, prose keys are kept as guidance.

    ``on_missing_<field>_decision`` keys (any field) name the decision when a field is missing.
    """

    model_config = ConfigDict(extra="allow")

    if_missing_fields: list[str] = Field(default_factory=list, description="fields to ask the user for")
    on_missing_fields_decision: str | None = None
    must_call_tools_in_order: list[str] = Field(default_factory=list)
    must_have: list[str] = Field(default_factory=list, description="facts required before proceeding")
    max_clarify_turns: int | None = None

    def missing_decisions(self) -> dict[str, str]:
        """``requirement key -> decision`` for every ``on_missing_*_decision`` key."""
        found = {"on_missing_fields_decision": self.on_missing_fields_decision} if self.on_missing_fields_decision else {}
        for key, value in (self.model_extra or {}).items():
            if key.startswith("on_missing_") and key.endswith("_decision") and isinstance(value, str):
                found[key] = value
        return found


class Node(Contract):
    node_id: str
    description: str = ""
    trigger: str | None = None
    requirements: Requirements = Field(default_factory=Requirements)
    branches: list[Branch] = Field(default_factory=list, description="empty for a leaf")
    test_guidance: dict[str, Any] | None = None


class Reliability(Contract):
    reruns: int = Field(5, ge=1, description="k of pass^k: reruns of every test")
    min_pass_rate: float = Field(0.9, ge=0.0, le=1.0, description="per-test pass rate below which a test is flaky")


class CompileBudget(Contract):
    max_iterations: int = Field(8, ge=1, description="PromptSmith iterations before giving up")


class Limits(Contract):
    max_tool_calls_per_turn: int | None = Field(None, ge=1)


class Defaults(Contract):
    reliability: Reliability = Field(default_factory=Reliability)
    compile_budget: CompileBudget = Field(default_factory=CompileBudget)
    limits: Limits = Field(default_factory=Limits)


VisibleFamily = Literal["MFT", "INV", "DIR"]


class VisibleGuidance(Contract):
    min_branch_coverage: float = Field(1.0, ge=0.0, le=1.0)
    min_types: list[VisibleFamily] = Field(default_factory=lambda: list(get_args(VisibleFamily)))
    required_markers: list[str] = Field(default_factory=list)


class HiddenGenerator(Contract):
    type: Literal["paraphrase", "boundary_values", "tool_output_metamorphic"]


class HiddenGuidance(Contract):
    generators: list[HiddenGenerator] = Field(default_factory=list)


class Behavior(Contract):
    """A behaviour (or a mutant idea) the spec names: an id and what it means."""

    id: str
    description: str = ""


class MutantIdeas(Contract):
    mutants: list[Behavior] = Field(default_factory=list)


class V1Invariants(Contract):
    description: str = ""
    preserved_behaviors: list[Behavior] = Field(default_factory=list)
    deprecated_behaviors: list[Behavior] = Field(default_factory=list)


class TestsGuidance(Contract):
    __test__ = False
    visible: VisibleGuidance = Field(default_factory=VisibleGuidance)
    hidden: HiddenGuidance = Field(default_factory=HiddenGuidance)
    mutation_pack: MutantIdeas = Field(default_factory=MutantIdeas)
    spec_evolution_v2: dict[str, Any] | None = Field(None, description="the v2 scenario a v1 spec announces")
    testing_patterns: dict[str, Any] | None = Field(None, description="free-form hints for the test generator")
    v1_invariants: V1Invariants | None = Field(None, description="v2 specs: v1 behaviours that must hold")


class Spec(Contract):
    """One spec version of one agent."""

    spec_id: str
    suite: str = ""
    title: str = ""
    risk_level: str = ""
    version: str
    base_version: str | None = Field(None, description="v2 specs: the version they evolve from")
    assumptions: list[str] = Field(default_factory=list)
    defaults: Defaults = Field(default_factory=Defaults)
    tools: list[ToolSpec] = Field(min_length=1)
    policies: list[Policy] = Field(default_factory=list)
    response_contract: ResponseContract = Field(default_factory=ResponseContract)
    decision_tree: list[Node] = Field(min_length=1)
    tests: TestsGuidance = Field(default_factory=TestsGuidance)

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    def action_tools(self) -> list[str]:
        """Every tool but ``respond``."""
        return [t.name for t in self.tools if t.name != RESPOND_TOOL]

    def node(self, node_id: str) -> Node | None:
        return next((n for n in self.decision_tree if n.node_id == node_id), None)

    def decisions(self) -> list[str]:
        """The decisions ``respond`` accepts (its enum; the contract's enum if it has none)."""
        respond = self.tool(RESPOND_TOOL)
        return (respond.decision_enum() if respond else []) or list(self.response_contract.decision_enum)

    def leaves(self) -> list[str]:
        """Terminal node ids in tree order: declared nodes without branches, then branch targets
        that are not declared (a lint error, but still where a path ends)."""
        declared = {n.node_id for n in self.decision_tree}
        out = [n.node_id for n in self.decision_tree if not n.branches]
        for node in self.decision_tree:
            for branch in node.branches:
                if branch.next not in declared and branch.next not in out:
                    out.append(branch.next)
        return out

    def version_label(self) -> str:
        """``v1`` for version '1.0', ``v2`` for '2.0' (how mutation packs name versions)."""
        major = self.version.split(".", 1)[0]
        return f"v{major}" if major.isdigit() else self.version
