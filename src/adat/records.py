"""Typed records: one per thing that crosses a stage, a file or the LLM boundary.

Every Parquet table in the warehouse is derived from one of these models (see
``adat.warehouse``), so SQL and Python cannot drift. Field types are restricted to what maps
cleanly onto Arrow: ``str``, ``int``, ``float``, ``bool``, ``datetime``, ``Literal[...]`` of
strings, ``Optional`` of those, ``list[str]`` and lists of nested records built from the same.
Free-form mappings are stored as JSON text (fields ending in ``_json``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field, model_validator

from adat.record_base import Produced, Record  # re-exported: every record module derives from them

# AgentToolCall is re-exported: Turn holds it, and both pipelines evaluate assertions over it
from adat.spec_records import AgentToolCall, AssertionOutcome, SpecAssertion, SpecTest, SpecTurn

TraceKind = Literal["discovery", "execution"]
TestKind = Literal["plain", "transformed", "direct", "agenteval", "spec"]
VerdictValue = Literal["pass", "fail", "inconclusive"]
Validity = Literal["explicit", "valid", "invalid"]
ExecLabel = Literal["TP", "FP", "FN", "TN", "INC"]
Side = Literal["allowed", "denied"]
AttemptOutcomeName = Literal["applicable", "not_applicable", "error"]


class Turn(Record):
    """One message of a conversation, as the tester sees it."""

    role: Literal["user", "agent"] = Field(description="who spoke: the tester (user) or the agent")
    text: str = Field(description="the message text")
    ts: float = Field(0.0, description="seconds since the session started")
    tool_calls: list[AgentToolCall] = Field(default_factory=list, description="the tool calls the agent reported "
                                       "for this reply, in order (empty: none reported)")


class Trace(Produced):
    """A whole conversation with the target: a discovery session or a test execution."""

    trace_id: str
    run_id: str
    kind: TraceKind
    objective: str = Field("", description="what the planner wanted this session to find out")
    strategy: str = Field("", description="how the driver was told to go about it")
    turns: list[Turn] = Field(default_factory=list)
    ended_by: Literal["met", "cannot", "turn_limit", "hints_done", "error"] = "turn_limit"
    session_id: str = Field("", description="the target's session id (joins the rule side log)")


class Statement(Produced):
    """A condition and the behaviour expected under it, stated in an agent reply."""

    statement_id: str
    run_id: str
    text: str = Field(description="the statement in one sentence")
    condition: str = Field(description="the condition under which the behaviour is expected")
    behavior: str = Field(description="the observable behaviour the agent shows under the condition")
    supporting_trace_id: str
    supporting_turn: int = Field(description="index of the supporting agent reply in the trace's turns")
    supporting_reply: str
    extraction_order: int = Field(0, description="global order of extraction (grounding tie-break)")
    grounded: bool = True
    confidence: float = Field(0.0, ge=0.0, le=1.0, description="grounder's confidence an agent must behave so")
    rank: int | None = Field(None, description="1-based rank among grounded statements")


class Instruction(Record):
    """A test-transformation instruction from catalogs/instructions."""

    instruction_id: str
    run_id: str = Field("", description="set when a run snapshots the catalog into the warehouse")
    title: str
    text: str = Field(description="what the generator must change in the test")
    factor: str = Field(description="wording | value | state | sequence | identity | confirmation | multiplicity | ...")
    applicability: str = Field(description="when the instruction applies to a statement's test")
    prior_applicability: float = Field(ge=0.0, le=1.0, description="prior probability that a pair is applicable")


class TestCase(Produced):
    """A test: a goal, the user messages to send, and how to judge the outcome."""

    __test__ = False  # not a pytest class

    test_id: str
    run_id: str
    kind: TestKind
    statement_id: str | None = None
    instruction_id: str | None = None
    goal: str
    step_hints: list[str] = Field(description="user messages the runner sends in order")
    success_criteria: list[str] = Field(default_factory=list)
    failure_criteria: list[str] = Field(default_factory=list)
    turn_limit: int = 10
    expected_side: Side | None = Field(None, description="side of the boundary the test expects the agent on")
    assumed_facts: list[str] = Field(default_factory=list, description="facts about the initial state the test relies on")
    provenance: str = Field("", description="free text: what the test was made from")


class Attempt(Record):
    """One transformation attempt: a statement-instruction pair and what came of it."""

    run_id: str
    attempt_no: int = Field(description="1-based attempt number t")
    statement_id: str
    instruction_id: str
    applicable: bool = Field(False, description="a test was written (outcome == 'applicable'; follows outcome)")
    outcome: AttemptOutcomeName = Field(
        "not_applicable", description="applicable | not_applicable | error (the generator failed: "
                                      "teaches the selector nothing)")
    generator: str = Field("", description="provider/model of the generator role that made the attempt")
    target_id: str = Field("", description="the target's identity (agent_id) the test was executed on")
    reason: str = ""
    test_id: str | None = None
    verdict: VerdictValue | None = None
    reward: float | None = None
    selector: str
    block: int = 0
    pass_no: int = 1
    scores_json: str = Field("{}", description="selector scores at the time of the choice, as JSON")

    @model_validator(mode="before")
    @classmethod
    def _outcome_from_applicable(cls, data: Any) -> Any:
        # ``outcome`` is the source of truth and ``applicable`` follows it; rows written before
        # ``outcome`` existed (and callers that only say applicable) get the outcome it implies.
        if isinstance(data, dict):
            outcome = data.get("outcome")
            if outcome is None:
                data = {**data, "outcome": "applicable" if data.get("applicable") else "not_applicable"}
            else:
                data = {**data, "applicable": outcome == "applicable"}
        return data


class Execution(Record):
    """One run of a test against a target (original agent or a faulty variant)."""

    execution_id: str
    run_id: str
    test_id: str
    agent_id: str
    agent_variant: str = Field("original", description="'original' or a fault id")
    session_id: str = ""
    turns: list[Turn] = Field(default_factory=list)
    ended_by: Literal["hints_done", "turn_limit", "error"] = "hints_done"
    error: str | None = None
    duration_s: float = 0.0
    retries: int = Field(0, description="messages sent again after a transient transport failure (http target)")
    trial: int = Field(1, description="which of the run's repeated trials of the test on this variant (1..k; "
                                      "`run-suite --repeat k`); each trial is a fresh session")


class CriterionResult(Record):
    criterion: str
    kind: Literal["success", "failure"]
    holds: bool | None = Field(None, description="None when the trace does not show it")
    rationale: str = ""


class ProcessAssertion(Produced):
    """One process check of a statement (table ``process_assertions``, stage ``process-checks``):
    a typed assertion over the tool trace (``assertion.clause`` is the statement id)."""

    run_id: str
    statement_id: str
    statement: str = Field(description="the statement's text: the clause a broken check names")
    assertion: SpecAssertion
    tools_seen: list[str] = Field(default_factory=list, description="tool names seen in discovery, which it was "
                                  "mapped from")


class ProcessCheckResult(Record):
    """A process check judged on one execution (nested in :class:`Verdict`; view ``stg_process_checks``)."""

    statement_id: str
    statement: str
    kind: str = Field(description="assertion kind, e.g. confirm_before")
    check: str = Field(description="the assertion in words, with its tools")
    outcome: Literal["pass", "fail", "not_observable"] = Field(description="not_observable: the target reported "
                                                                           "no tool calls (never a pass)")
    detail: str = ""


class Verdict(Produced):
    """The judge's verdict on one execution, after the process checks (a broken one fails it)."""

    run_id: str
    execution_id: str
    test_id: str
    verdict: VerdictValue
    rationale: str = ""
    criteria: list[CriterionResult] = Field(default_factory=list)
    judged: bool = Field(True, description="False when no judge saw the execution (target error, judge "
                         "failure): counted as unjudged, not inconclusive")
    judge_verdict: VerdictValue | None = Field(None, description="the judge's own verdict, before the process "
                                               "checks; None when not judged")
    process_checks: list[ProcessCheckResult] = Field(default_factory=list, description="the process checks of the "
                                                     "test's statement on this execution (empty: none, or "
                                                     "judge.use_tool_trace off)")


class BoundaryMapping(Record):
    boundary: str = Field(description="boundary id (rule id for the reference agent)")
    side: Side
    explicit: bool = True
    passages: list[str] = Field(default_factory=list)


class AuditLabel(Produced):
    """The auditor's validity label for a test (evaluation only)."""

    run_id: str
    test_id: str
    validity: Validity
    reasons: list[str] = Field(default_factory=list)
    mappings: list[BoundaryMapping] = Field(default_factory=list)


class ExecutionLabel(Produced):
    """The auditor's label of an execution of a valid boundary test (evaluation only)."""

    run_id: str
    execution_id: str
    test_id: str
    agent_variant: str = "original"
    label: ExecLabel
    complied: bool | None = None
    attributed_fault: str | None = Field(None, description="fault id the failure is attributed to, if any")
    rationale: str = ""


class Grouping(Record):
    """One of the auditor's three groupings of boundary-side mappings."""

    run_id: str
    grouping_no: int
    test_id: str
    boundary: str
    side: Side
    group_boundary: str = Field(description="canonical boundary this mapping was grouped into")
    group_side: str = Field(description="canonical boundary+side this mapping was grouped into")


class RuleEvent(Record):
    """Evaluation-only side log of the reference agent: a rule evaluated in a session."""

    run_id: str
    session_id: str
    agent_variant: str = "original"
    rule_id: str
    side: Side = Field(description="the side of the boundary under the shipped rule")
    turn: int = Field(description="0-based index of the user turn that triggered the evaluation")
    decision: Side | None = Field(None, description="the side this agent variant took (differs from side where "
                                                    "a seeded fault flipped the rule); None: not reported")


class LLMCall(Record):
    """Every call through the LLM client is one row."""

    call_id: str
    run_id: str
    role: str
    provider: str
    model: str
    prompt_id: str = ""
    prompt_version: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    cache_hit: bool = False
    retries: int = 0
    error: str | None = None
    ts: datetime
    repaired: bool = Field(False, description="the first answer was invalid and a repair request was sent")
    priced: bool = Field(True, description="False when the model had no price, so cost_usd 0 means unknown")
    phase: str = Field("", description="the pipeline stage that made the call (what a phase budget counts)")
    invalid_answers: int = Field(0, description="answers that failed validation (schema or missing content); "
                                 "the first one is re-asked once with the error")
    output_mode: str = Field("", description="how the structured answer was asked for (json_schema, "
                             "json_object_schema, json_object, prompt); '' for text and chat calls")
    pending: bool = Field(False, description="folded from the request journal: sent, but the process ended "
                          "before its answer was recorded (tokens unknown)")
    cut_chars: int = Field(0, description="characters cut from the rendered input to fit the model's context "
                           "(net of the markers; adat.llm.context_budget); 0 = sent as rendered")
    cut_items: int = Field(0, description="whole history items (earlier sessions, traces, tests) dropped, oldest first")
    cut_rule: str = Field("", description="what was cut, by which rule ('context-v1: dropped the oldest 3 of 10 "
                          "earlier_traces; ...'); '' = nothing")


class Run(Record):
    """One pipeline run."""

    run_id: str
    flow: str
    started_at: datetime
    finished_at: datetime | None = None
    status: Literal["running", "completed", "failed", "budget_exhausted", "abandoned"] = Field(
        "running", description="abandoned: the row said running when a later command found its process gone "
                               "(killed, crashed); failed with error 'interrupted': stopped by Ctrl-C or SIGTERM")
    stopped_in: str = Field("", description="budget_exhausted: the phase the run stopped in, and which limit")
    error: str = Field("", description="failed: the one line of the error the flow failed with")
    target: str = ""
    agent_variant: str = "original"
    suite_run_id: str = Field("", description="run_suite: the run whose suite it executed (its verdicts on the "
                                              "original agent are the base a faulty variant is compared with)")
    models_json: str = Field("{}", description="role -> provider/model, as JSON")
    config_json: str = Field("{}", description="the whole RunConfig, as JSON (secrets never included)")
    selector: str = ""
    adat_version: str = ""


# --- TDAD (spec-driven suites, DESIGN §9) -------------------------------------------------
SpecSplit = Literal["visible", "hidden"]


class SpecResult(Record):
    """One execution of a spec test on one prompt artifact (compile, rerun or mutant stage)."""

    run_id: str
    result_id: str
    spec_id: str
    spec_version: str
    test_id: str
    split: SpecSplit
    family: str = ""
    agent_variant: str = Field("compiled", description="seed / candidate / compiled / a mutant id")
    artifact_digest: str = Field(description="digest of the prompt artifact the test ran on")
    target: str = Field("", description="spec-agent:<model> or the other target's id")
    iteration: int = Field(0, description="compile iteration the run belongs to (compile_results)")
    scope: str = Field("", description="compile: full | failing; reruns: suite | invariant; mutants: suite | probe")
    rerun: int = Field(0, description="0-based repeat number (pass^k)")
    passed: bool
    not_observable: bool = Field(False, description="nothing the test needs was observed (passed is then False)")
    error: str | None = None
    assertion_results: list[AssertionOutcome] = Field(default_factory=list)
    turns: list[SpecTurn] = Field(default_factory=list, description="what the runner saw, turn by turn")
    duration_s: float = 0.0


class CompileIteration(Produced):
    """One PromptSmith iteration: the candidate, whether it was promoted, and the failures it saw."""

    run_id: str
    spec_id: str
    spec_version: str
    iteration: int = Field(description="0 = the starting prompt run on every visible test")
    parent_digest: str = Field("", description="digest of the prompt in effect before the iteration")
    candidate_digest: str = Field(description="digest of the prompt proposed (iteration 0: the start prompt)")
    promoted: bool
    in_effect_digest: str = Field(description="digest of the prompt in effect after the iteration")
    inner_attempts: int = Field(0, description="candidates tried on the failing tests before the full run")
    diff: str = Field("", description="unified diff from the parent to the candidate")
    failing_tests: list[str] = Field(default_factory=list, description="visible tests failing on the parent")
    failing_clauses: list[str] = Field(default_factory=list, description="their spec clauses, most failures first")
    start: str = Field("", description="iteration 0 only: seed (shipped seed prompt) or a run id (evolution)")
    budget: int = Field(-1, description="PromptSmith iterations the compilation was allowed; 0 = not compiled "
                                        "(the agent does not read the prompt); -1 = not recorded")
    artifact_json: str = Field("{}", description="the prompt artifact in effect after the iteration, as JSON")


class MutantRow(Produced):
    """A variant of the agent for mutation testing: a prompt mutant or a seeded fault."""

    run_id: str
    mutant_id: str
    kind: Literal["prompt", "fault"] = "prompt"
    spec_id: str = ""
    spec_version: str = ""
    intent: str = ""
    base_digest: str = Field("", description="digest of the compiled prompt the mutant was made from")
    prompt_digest: str = Field("", description="digest of the mutant prompt")
    activated: bool
    activation_attempts: int = Field(description="mutants generated until the probe held (or max_attempts)")
    probe_holds_on_base: bool = Field(False, description="the probe held on the unmutated prompt in every scenario")
    diff: str = ""


class StageRun(Record):
    """A stage of a run started or finished with a given cache key (how a resume knows its inputs)."""

    run_id: str
    stage: str = Field(description="the stage's owner name, e.g. transformation")
    key: str = Field(description="digest of the stage's inputs; a different key means recompute, not resume")
    status: Literal["running", "completed"] = "running"
    ts: datetime


class SuiteBlessing(Record):
    """A suite run blessed under a name: the frozen suite a nightly or a CI gate runs (``adat suite bless``)."""

    run_id: str = Field(description="the run whose tests are the suite")
    name: str = Field(description="the suite's name (a config's nightly.suite, or adat suite bless --name)")
    blessed_at: datetime
    tests: int = Field(0, description="tests in the suite when it was blessed")
    source: str = Field("", description="where it came from: bless, or import:<bundle file>")


#: table name -> record model; the warehouse writes exactly these tables. ``statements`` is
#: extraction's; ``ranked_statements`` is grounding's (the same records with grounded,
#: confidence and rank set).
TABLES: dict[str, type[Record]] = {
    "runs": Run,
    "traces": Trace,
    "statements": Statement,
    "ranked_statements": Statement,
    # the process checks mapped from the ranked statements (stage process-checks)
    "process_assertions": ProcessAssertion,
    "instructions": Instruction,
    "tests": TestCase,
    "attempts": Attempt,
    "executions": Execution,
    "verdicts": Verdict,
    # a second verdict on an execution whose test's trials disagree (judge-flakiness; the
    # execution's verdict stays the one in ``verdicts``)
    "rejudgements": Verdict,
    "audit_labels": AuditLabel,
    "execution_labels": ExecutionLabel,
    "groupings": Grouping,
    "rule_events": RuleEvent,
    "llm_calls": LLMCall,
    "compile_iterations": CompileIteration,
    "compile_results": SpecResult,
    "spec_reruns": SpecResult,
    "mutants": MutantRow,
    "mutant_results": SpecResult,
    "spec_tests": SpecTest,
    "stage_runs": StageRun,
    "suite_blessings": SuiteBlessing,
}
