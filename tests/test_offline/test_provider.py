"""The offline/heuristic provider: registry, dispatch, output contracts, determinism, the client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from adat.config import LLMSettings, RunConfig
from adat.contracts import adat2_roles as roles
from adat.contracts.adat2_roles import (
    DirectInput,
    DriverInput,
    ExtractorInput,
    GrounderInput,
    GroundingCandidate,
    InstructionView,
    JudgeInput,
    PlainInput,
    PlannerInput,
    SelectorCandidate,
    SelectorInput,
    SessionSummary,
    TraceView,
    TransformInput,
    TurnView,
)
from adat.llm.client import LLMClient
from adat.llm.providers.provider_registry import ProviderRegistry, default_registry
from adat.llm.types import LLMError, LLMRequest, LLMResponse
from adat_offline import planning
from adat_offline.provider import HANDLERS, OfflineHeuristicProvider
from tests.test_offline.conftest import Extracted, find


def _request(prompt_id: str, variables: BaseModel) -> LLMRequest:
    return LLMRequest(role="x", provider="offline", model="heuristic", messages=[{"role": "user", "content": "-"}],
                      prompt_id=prompt_id, variables=variables.model_dump())


@pytest.fixture(scope="module")
def inputs(traces: list[TraceView], extracted: list[Extracted], tester_facts: list[str]) -> dict[str, BaseModel]:
    """A realistic input for every role the provider answers."""
    st = find(extracted, "cancel", "delivered")
    trace = traces[0]
    return {
        roles.PROMPT_PLANNER: PlannerInput(session_no=3, sessions_total=10, tester_facts=tester_facts,
                                           earlier_sessions=[SessionSummary(objective=t.objective, strategy=t.strategy,
                                                                            ended_by="met") for t in traces[:2]],
                                           earlier_traces=traces[:2]),
        roles.PROMPT_DRIVER: DriverInput(objective=trace.objective, strategy=trace.strategy, tester_facts=tester_facts,
                                         turns=trace.turns[:2], turn_no=2, turn_limit=12),
        roles.PROMPT_EXTRACTOR: ExtractorInput(trace=trace),
        roles.PROMPT_GROUNDER: GrounderInput(statements=[
            GroundingCandidate(index=i, text=e.view.text, condition=e.view.condition, behavior=e.view.behavior,
                               supporting_reply=e.reply) for i, e in enumerate(extracted[:5])]),
        roles.PROMPT_PLAIN: PlainInput(statement=st.view, supporting_reply=st.reply,
                                       supporting_context=st.trace.turns[: st.raw.supporting_turn + 1],
                                       tester_facts=tester_facts, turn_limit=10),
        roles.PROMPT_TRANSFORM: TransformInput(
            statement=st.view, supporting_reply=st.reply,
            instruction=InstructionView(instruction_id="state-status-change", title="Put the entity in another status",
                                        text="...", factor="state", applicability="..."),
            plain_test=st.plain, discovery_traces=traces, recent_tests=[], tester_facts=tester_facts, turn_limit=10),
        roles.PROMPT_DIRECT: DirectInput(discovery_traces=traces[:5], existing_tests=[], tester_facts=tester_facts,
                                         turn_limit=10, max_tests=3),
        roles.PROMPT_JUDGE: JudgeInput(goal=st.plain.goal, success_criteria=st.plain.success_criteria,
                                       failure_criteria=st.plain.failure_criteria,
                                       turns=st.trace.turns[: st.raw.supporting_turn + 1], ended_by="hints_done"),
        roles.PROMPT_SELECTOR: SelectorInput(attempt_no=3, history=["st-1 x wording-paraphrase: not applicable"],
                                             candidates=[SelectorCandidate(statement_id="st-1", statement="s",
                                                                           instruction_id="wording-paraphrase",
                                                                           instruction="Reword"),
                                                         SelectorCandidate(statement_id="st-1", statement="s",
                                                                           instruction_id="social-urgency",
                                                                           instruction="Add urgency")]),
    }


def test_registry_builds_the_provider_with_no_arguments() -> None:
    provider_name, model, provider = default_registry().create("offline/heuristic", RunConfig())
    assert (provider_name, model) == ("offline", "heuristic")
    assert isinstance(provider, OfflineHeuristicProvider)


def test_every_role_answers_with_its_output_model(inputs: dict[str, BaseModel]) -> None:
    provider = OfflineHeuristicProvider()
    outputs = {roles.PROMPT_PLANNER: roles.PlannerOutput, roles.PROMPT_DRIVER: roles.DriverOutput,
               roles.PROMPT_EXTRACTOR: roles.ExtractorOutput, roles.PROMPT_GROUNDER: roles.GrounderOutput,
               roles.PROMPT_PLAIN: roles.GeneratedTest, roles.PROMPT_TRANSFORM: roles.TransformOutput,
               roles.PROMPT_DIRECT: roles.DirectOutput, roles.PROMPT_JUDGE: roles.JudgeOutput,
               roles.PROMPT_SELECTOR: roles.SelectorOutput}
    assert set(outputs) <= set(HANDLERS)
    for prompt_id, output in outputs.items():
        response = provider.complete(_request(prompt_id, inputs[prompt_id]))
        parsed = output.model_validate_json(response.content or "")
        assert parsed is not None
        assert response.input_tokens > 0 and response.output_tokens > 0
    transformed = roles.TransformOutput.model_validate_json(
        provider.complete(_request(roles.PROMPT_TRANSFORM, inputs[roles.PROMPT_TRANSFORM])).content or "")
    assert transformed.applicable and transformed.test is not None


def test_same_request_same_answer(inputs: dict[str, BaseModel]) -> None:
    for prompt_id, variables in inputs.items():
        first = OfflineHeuristicProvider().complete(_request(prompt_id, variables)).content
        second = OfflineHeuristicProvider().complete(_request(prompt_id, variables)).content
        assert first == second, prompt_id


def test_unknown_prompt_and_bad_variables_are_llm_errors() -> None:
    provider = OfflineHeuristicProvider()
    with pytest.raises(LLMError, match="no rules for prompt 'auditor'"):
        provider.complete(LLMRequest(role="auditor", provider="offline", model="heuristic", messages=[],
                                     prompt_id="auditor"))
    with pytest.raises(LLMError, match="do not match PlannerInput"):
        provider.complete(LLMRequest(role="planner", provider="offline", model="heuristic", messages=[],
                                     prompt_id=roles.PROMPT_PLANNER, variables={"session_no": "first"}))


def test_through_the_llm_client_calls_are_labelled_offline(inputs: dict[str, BaseModel], tmp_path: Path) -> None:
    cfg = RunConfig(run_id="t", data_dir=str(tmp_path))
    client = LLMClient(cfg, "t", cache_dir=tmp_path / "cache")
    plan = client.structured("planner", roles.PROMPT_PLANNER, inputs[roles.PROMPT_PLANNER].model_dump(),
                             roles.PlannerOutput)
    assert plan.objective
    calls = client.drain_calls()
    assert [(c.provider, c.model, c.prompt_id) for c in calls] == [("offline", "heuristic", "planner")]
    assert calls[0].cost_usd == 0.0


def test_content_is_plain_json(inputs: dict[str, BaseModel]) -> None:
    content = OfflineHeuristicProvider().complete(_request(roles.PROMPT_JUDGE, inputs[roles.PROMPT_JUDGE])).content
    assert json.loads(content or "")["verdict"] in ("pass", "fail", "inconclusive")


class _Recording(OfflineHeuristicProvider):
    """The stand-in, keeping the requests it answered."""

    def __init__(self) -> None:
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return super().complete(request)


@pytest.mark.parametrize("context_tokens", [32000, 2500])
def test_the_stand_in_sees_what_a_model_would_after_a_context_cut(context_tokens: int, tmp_path: Path) -> None:
    """The stand-in answers from the variables as given, at any configured window."""
    stand_in = _Recording()
    registry = ProviderRegistry()
    registry.register("offline", lambda model, cfg: stand_in)  # not cacheable: a subclass of the stand-in
    cfg = RunConfig(run_id="t", data_dir=str(tmp_path),
                    llm=LLMSettings(context_tokens=context_tokens, max_output_tokens=500))
    client = LLMClient(cfg, "t", cache_dir=tmp_path / "cache", registry=registry)
    reply = "I can refund an order within 30 days of delivery once you give me your email. " * 12
    traces = [TraceView(trace_id=f"tr-{i}", objective=f"objective {i}", strategy="ask",
                        turns=[TurnView(role="user", text="hi"), TurnView(role="agent", text=reply)])
              for i in range(8)]
    inp = PlannerInput(session_no=9, sessions_total=10, tester_facts=["user id: alice_01"],
                       earlier_sessions=[SessionSummary(objective=t.objective, strategy="ask", ended_by="hints_done",
                                                        last_agent_reply=reply[:100]) for t in traces],
                       earlier_traces=traces)
    variables = inp.model_dump()
    plan = client.structured("planner", roles.PROMPT_PLANNER, variables, roles.PlannerOutput)
    seen = stand_in.requests[0].variables
    row = client.drain_calls()[0]
    assert plan == planning.plan(PlannerInput.model_validate(seen))
    # The stand-in has no token window (``context_limited = False``): whatever llm.context_tokens
    # says, it reads the inputs whole (a model's window applied to it stopped `adat spec demo` in
    # ContextOverflow); cutting is a real model's (tests/test_llm/test_context_budget.py).
    assert seen == variables and row.cut_rule == "" and row.error is None
