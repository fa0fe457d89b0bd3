"""What each LLM role is given and must answer: the contract between the pipeline stages, the
prompt files in ``catalogs/prompts/`` and every provider (real models and offline/heuristic).

For each role, ``*Input`` documents the variables a prompt is rendered from (the stage builds it,
``model_dump()`` gives the prompt variables) and ``*Output`` is the structured answer the client
validates. Prompt ids are the ``PROMPT_*`` constants. Every input holds only what a black-box
tester sees; the auditor, the one role that may see agent artifacts, has its own contract
(:mod:`adat.contracts.auditor_roles`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adat.contracts.contract_base import Contract

PROMPT_PLANNER = "planner"
PROMPT_DRIVER = "driver"
PROMPT_EXTRACTOR = "extractor"
PROMPT_GROUNDER = "grounder"
PROMPT_PLAIN = "generate_plain"
PROMPT_TRANSFORM = "generate_transformed"
PROMPT_JUDGE = "judge"
PROMPT_SELECTOR = "selector"
PROMPT_DIRECT = "generate_direct"
PROMPT_AGENTEVAL = "agenteval_perturb"


class TurnView(Contract):
    role: Literal["user", "agent"]
    text: str


class TraceView(Contract):
    trace_id: str
    objective: str = ""
    strategy: str = ""
    turns: list[TurnView]


class SessionSummary(Contract):
    objective: str
    strategy: str
    ended_by: str
    last_agent_reply: str = ""


# --- planner -----------------------------------------------------------------------------
class PlannerInput(Contract):
    session_no: int = Field(description="1-based number of the session about to start")
    sessions_total: int
    tester_facts: list[str]
    earlier_sessions: list[SessionSummary]
    earlier_traces: list[TraceView] = Field(description="the most recent discovery traces, untrusted")


class PlannerOutput(Contract):
    objective: str = Field(description="what this session tries to achieve or find out")
    strategy: str = Field(description="how the simulated user goes about it")
    rationale: str = ""

    def content_problem(self) -> str | None:
        """Why a schema-valid answer is still no plan (see :func:`adat.llm.output_schema.parse_output`)."""
        return None if self.objective.strip() else "the objective is empty"


# --- driver ------------------------------------------------------------------------------
class DriverInput(Contract):
    objective: str
    strategy: str
    tester_facts: list[str]
    turns: list[TurnView] = Field(description="the conversation so far, untrusted agent text")
    turn_no: int
    turn_limit: int


class DriverOutput(Contract):
    status: Literal["continue", "met", "cannot"] = Field(
        description="continue = send message; met / cannot = end the session without sending")
    message: str = Field("", description="the next user message when status is continue")


# --- extractor ---------------------------------------------------------------------------
class ExtractorInput(Contract):
    trace: TraceView


class ExtractedStatement(Contract):
    text: str = Field(description="one sentence: under <condition>, the agent <behavior>")
    condition: str
    behavior: str
    supporting_turn: int = Field(description="index in trace.turns of the agent reply that states it")


class ExtractorOutput(Contract):
    statements: list[ExtractedStatement]

    def content_problem(self) -> str | None:
        """A statement with an empty text, condition or behaviour states nothing (an empty list is a valid answer)."""
        blank = [i for i, s in enumerate(self.statements)
                 if not (s.text.strip() and s.condition.strip() and s.behavior.strip())]
        return f"statements {blank} have an empty text, condition or behavior" if blank else None


# --- grounder ----------------------------------------------------------------------------
class GroundingCandidate(Contract):
    index: int
    text: str
    condition: str
    behavior: str
    supporting_reply: str


class GrounderInput(Contract):
    statements: list[GroundingCandidate]


class GroundingItem(Contract):
    index: int
    grounded: bool
    confidence: float = Field(ge=0.0, le=1.0, description="confidence that an agent must behave so")
    reason: str = ""


class GrounderOutput(Contract):
    items: list[GroundingItem]


# --- generator ---------------------------------------------------------------------------
class StatementView(Contract):
    statement_id: str
    text: str
    condition: str
    behavior: str


class TestView(Contract):
    __test__ = False
    test_id: str
    kind: str
    goal: str
    step_hints: list[str]
    success_criteria: list[str]
    failure_criteria: list[str]


class InstructionView(Contract):
    instruction_id: str
    title: str
    text: str
    factor: str
    applicability: str


class GeneratedTest(Contract):
    __test__ = False
    goal: str
    step_hints: list[str] = Field(min_length=1, description="user messages, sent in order")
    success_criteria: list[str] = Field(min_length=1)
    failure_criteria: list[str] = Field(default_factory=list)
    expected_side: Literal["allowed", "denied"] | None = Field(
        None, description="allowed = the agent should do what is asked; denied = it should refuse")
    assumed_facts: list[str] = Field(default_factory=list)

    def content_problem(self) -> str | None:
        """A test with an empty goal, no non-empty user message or success criteria that name nothing."""
        if not self.goal.strip():
            return "the goal is empty"
        if not any(h.strip() for h in self.step_hints):
            return "every step hint is empty"
        if not any(c.strip() for c in self.success_criteria):
            return "the success criteria name nothing"
        return None


class PlainInput(Contract):
    statement: StatementView
    supporting_reply: str
    supporting_context: list[TurnView] = Field(description="the discovery conversation up to the reply")
    tester_facts: list[str]
    turn_limit: int


#: The kinds of reason a generator gives for declining a pair (the transform prompt asks for a
#: ``statement:`` or ``instruction:`` tag): ``statement`` — the statement lacks what this kind of
#: change needs (a property of the statement and the instruction's factor); ``instruction`` —
#: specific to this one instruction. The selectors learn from the kind.
NA_STATEMENT, NA_INSTRUCTION = "statement", "instruction"
NA_REASONS = (NA_STATEMENT, NA_INSTRUCTION)


def reason_kind(text: str) -> str | None:
    """The kind of a generator's not-applicable reason: its leading ``statement:`` or
    ``instruction:`` tag; None for an untagged reason."""
    head, sep, _ = text.partition(":")
    kind = head.strip().lower()
    return kind if sep and kind in NA_REASONS else None


class TransformInput(Contract):
    statement: StatementView
    supporting_reply: str
    instruction: InstructionView
    plain_test: TestView | None = Field(None, description="the statement's plain test, when there is one")
    discovery_traces: list[TraceView]
    recent_tests: list[TestView]
    tester_facts: list[str]
    turn_limit: int
    covered_sides: list[Literal["allowed", "denied"]] = Field(
        default_factory=list, description="the boundary sides the statement's tests cover so far in the run")
    aim_side: Literal["allowed", "denied"] | None = Field(
        None, description="the side no test of the statement covers yet, when its tests cover one side only")


class TransformOutput(Contract):
    applicable: bool
    reason: str = Field(description="why the pair is (not) applicable")
    test: GeneratedTest | None = None

    def content_problem(self) -> str | None:
        """A test, when there is one, needs its content (applicable without a test is the stage's
        own case: an attempt that counts as not applicable)."""
        return self.test.content_problem() if self.test is not None else None


class DirectInput(Contract):
    discovery_traces: list[TraceView]
    existing_tests: list[TestView]
    tester_facts: list[str]
    turn_limit: int
    max_tests: int


class DirectOutput(Contract):
    tests: list[GeneratedTest]
    exhausted: bool = Field(description="true when the traces support no further boundary tests")


# --- AgentEval baseline: perturb the user messages that reach a workflow-graph target ------
class WorkflowTargetView(Contract):
    """A node (an activity of the agent) or an edge (user messages moving between two activities)."""

    target_id: str
    kind: Literal["node", "edge"]
    activity: list[str] = Field(description="agent replies of the target node (edge: of the node it enters)")
    from_activity: list[str] = Field(default_factory=list,
                                     description="edge only: agent replies of the node it leaves")
    edge_messages: list[str] = Field(default_factory=list,
                                     description="edge only: user messages seen on the edge")


class AgentEvalInput(Contract):
    target: WorkflowTargetView
    path: list[TurnView] = Field(description="a discovery conversation that reaches the target, untrusted")
    tester_facts: list[str]
    turn_limit: int


class AgentEvalOutput(Contract):
    test: GeneratedTest | None = Field(None, description="the test for the target; null when none can be written")
    reason: str = ""


# --- judge -------------------------------------------------------------------------------
class JudgeInput(Contract):
    goal: str
    success_criteria: list[str]
    failure_criteria: list[str]
    turns: list[TurnView]
    ended_by: str
    tool_trace_shown: bool = Field(False, description="the target reported tool calls and judge.use_tool_trace is on")
    tool_trace: str = Field("", description="the reported tool calls, one line each by user turn (bounded)")


class JudgedCriterion(Contract):
    criterion: str
    kind: Literal["success", "failure"]
    holds: bool | None
    rationale: str = ""


class JudgeOutput(Contract):
    verdict: Literal["pass", "fail", "inconclusive"]
    rationale: str
    criteria: list[JudgedCriterion] = Field(default_factory=list)

    def content_problem(self) -> str | None:
        """A pass or fail must rest on a named criterion; inconclusive may name none."""
        if self.verdict != "inconclusive" and not any(c.criterion.strip() for c in self.criteria):
            return f"the verdict {self.verdict!r} names no criterion"
        return None


# --- selector (LLM selector baseline) ----------------------------------------------------
class SelectorCandidate(Contract):
    statement_id: str
    statement: str
    instruction_id: str
    instruction: str


class SelectorInput(Contract):
    attempt_no: int
    history: list[str] = Field(description="earlier attempts: pair and outcome, one line each")
    candidates: list[SelectorCandidate]


class SelectorOutput(Contract):
    statement_id: str
    instruction_id: str
    reason: str = ""
