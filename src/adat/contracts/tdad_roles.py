"""What the TDAD compiler roles are given and must answer (the contract between the compile and
mutate stages, their prompt files and every provider, offline/heuristic included).

PromptSmith sees the prompt artifact, the spec's clauses and the *visible* tests that fail:
nothing hidden is a field of its input. MutationSmith sees the compiled artifact, one mutation
intent and the pack's constraints: no tests at all.
"""

from __future__ import annotations

from pydantic import Field

from adat.contracts.contract_base import Contract

PROMPT_PROMPTSMITH, ROLE_PROMPTSMITH = "tdad_promptsmith", "promptsmith"
PROMPT_MUTATIONSMITH, ROLE_MUTATIONSMITH = "tdad_mutationsmith", "mutationsmith"


class ToolDescriptionView(Contract):
    name: str
    description: str


class FailedAssertionView(Contract):
    kind: str
    clause: str
    detail: str = ""


class FailingTestView(Contract):
    """A visible test that failed on the current prompt."""

    test_id: str
    family: str
    leaf_id: str
    user_turns: list[str]
    failed: list[FailedAssertionView]
    replies: list[str] = Field(default_factory=list, description="the agent's user-visible replies, untrusted")


class ClauseFailures(Contract):
    """The failures of one spec clause (failures are grouped by clause, most failures first)."""

    clause: str = Field(description="policy id or node id")
    clause_text: str = Field(description="what the spec says for the clause")
    tests: list[FailingTestView]


class PromptSmithInput(Contract):
    spec_title: str
    system_prompt: str
    tool_descriptions: list[ToolDescriptionView]
    decision_enum: list[str]
    failures: list[ClauseFailures]
    visible_tests: int
    visible_passed: int
    attempt: int = Field(description="0-based inner-loop attempt for these failures")


class PromptSmithOutput(Contract):
    system_prompt: str = Field(description="the whole edited system prompt")
    tool_descriptions: list[ToolDescriptionView] = Field(description="every tool's description after the edit")
    rationale: str = ""


class MutationSmithInput(Contract):
    mutation_id: str
    intent: str = Field(description="the failure mode the mutant must introduce")
    constraints: list[str]
    system_prompt: str
    tool_descriptions: list[ToolDescriptionView]
    attempt: int = Field(description="0-based generation attempt (earlier ones did not activate)")


class MutationSmithOutput(Contract):
    system_prompt: str = Field(description="the whole mutant system prompt")
    tool_descriptions: list[ToolDescriptionView] = Field(description="every tool's description in the mutant")
    rationale: str = ""

