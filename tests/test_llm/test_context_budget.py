"""Context limits (issue 29 item 4): a request over its model's context is cut by the documented
rule (adat.llm.context_budget) before it reaches the provider, and its llm_calls row says so."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from adat import config
from adat.config import LLMSettings, RoleModels, RunConfig
from adat.contracts.adat2_roles import (
    PROMPT_EXTRACTOR,
    PROMPT_PLANNER,
    ExtractorInput,
    ExtractorOutput,
    PlannerInput,
    PlannerOutput,
    SessionSummary,
    TraceView,
    TurnView,
)
from adat.errors import UserError
from adat.llm import LLMClient, LLMError, LLMRequest, ProviderRegistry
from adat.llm.context_budget import MIN_KEEP, SLACK, marker, request_tokens
from adat.llm.prompts import load_prompt
from adat.records import LLMCall

PROMPTS = config.adat_home() / "catalogs" / "prompts"
PLAN = {"objective": "find the refund rules", "strategy": "ask for a refund", "rationale": ""}
MARKER = re.compile(r" \[… (\d+) characters cut …\] ")


def client_for(tmp_path: Path, registry: ProviderRegistry, **llm: Any) -> LLMClient:
    cfg = RunConfig(models=RoleModels(planner="fake/planner", extractor="fake/extractor"),
                    llm=LLMSettings.model_validate({"cache": False, **llm}))
    return LLMClient(cfg, "run-ctx", cache_dir=tmp_path / "cache", registry=registry)


def trace(n: int, reply_chars: int) -> TraceView:
    reply = f"Reply of session {n}: " + "the refund policy says thirty days. " * (reply_chars // 36)
    return TraceView(trace_id=f"tr-{n:02d}", objective=f"objective {n}", strategy=f"strategy {n}",
                     turns=[TurnView(role="user", text=f"Hello, session {n}."), TurnView(role="agent", text=reply)])


def planner_input(sessions: int, recent: int, reply_chars: int) -> PlannerInput:
    traces = [trace(n, reply_chars) for n in range(1, sessions + 1)]
    return PlannerInput(session_no=sessions + 1, sessions_total=sessions + 5, tester_facts=["user id: alice_01"],
                        earlier_sessions=[SessionSummary(objective=t.objective, strategy=t.strategy,
                                                         ended_by="hints_done", last_agent_reply=t.turns[-1].text[:80])
                                          for t in traces],
                        earlier_traces=traces[-recent:])


def one_row(client: LLMClient) -> LLMCall:
    rows = client.drain_calls()
    assert len(rows) == 1
    return rows[0]


def tokens_with(sent: LLMRequest, messages: list[dict[str, Any]]) -> int:
    """What ``sent`` would weigh with other messages (same schema and tools)."""
    return request_tokens(sent.model_copy(update={"messages": messages}))


def contents(messages: list[dict[str, Any]]) -> int:
    return sum(len(m["content"]) for m in messages)


def test_inputs_that_fit_reach_the_provider_byte_for_byte(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("planner", [PLAN])
    client = client_for(tmp_path, registry)  # the default window: 32000 tokens
    variables = planner_input(sessions=12, recent=5, reply_chars=600).model_dump()
    client.structured("planner", PROMPT_PLANNER, variables, PlannerOutput)
    sent = fake.requests[0]
    assert sent.messages == load_prompt(PROMPT_PLANNER, PROMPTS).render(variables)
    assert sent.variables == variables
    row = one_row(client)
    assert (row.cut_chars, row.cut_items, row.cut_rule) == (0, 0, "")


def test_many_earlier_sessions_lose_the_oldest_traces_first(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("planner", [PLAN])
    client = client_for(tmp_path, registry, context_tokens=6000, max_output_tokens=1000)
    inp = planner_input(sessions=30, recent=10, reply_chars=1500)
    variables = inp.model_dump()
    client.structured("planner", PROMPT_PLANNER, variables, PlannerOutput)

    sent = fake.requests[0]
    assert request_tokens(sent) <= 6000 - 1000
    kept_traces = [t["trace_id"] for t in sent.variables["earlier_traces"]]
    # the traces are the largest history list, so only they lose items, the oldest first
    assert 0 < len(kept_traces) < 10
    assert kept_traces == [t.trace_id for t in inp.earlier_traces][-len(kept_traces):]
    assert sent.variables["earlier_sessions"] == variables["earlier_sessions"]
    # the fewest drops: with the newest dropped trace back, the request would not fit
    template = load_prompt(PROMPT_PLANNER, PROMPTS)
    one_more = {**sent.variables, "earlier_traces": variables["earlier_traces"][-len(kept_traces) - 1:]}
    assert tokens_with(sent, template.render(one_more)) > 5000
    assert sent.messages == template.render(sent.variables)
    assert "characters cut" not in sent.messages[-1]["content"]  # step 1 was enough
    assert sent.messages[0] == template.render(variables)[0]  # the instructions are never cut

    row = one_row(client)
    dropped = 10 - len(kept_traces)
    assert row.cut_items == dropped
    assert row.cut_rule == f"context-v1: dropped the oldest {dropped} of 10 earlier_traces"
    assert row.cut_chars == contents(template.render(variables)) - contents(sent.messages) > 0
    assert row.input_tokens <= 5000 and row.error is None


def test_a_long_discovery_trace_is_cut_in_the_middle_of_its_longest_turns(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("extractor", [{"statements": []}])
    client = client_for(tmp_path, registry, context_tokens=4000, max_output_tokens=1000)
    long_a = "A" * 20 + "".join(f"line {i} of the first long reply. " for i in range(900)) + "END-A"
    long_b = "B" * 20 + "".join(f"row {i}: an item in stock. " for i in range(700)) + "END-B"
    turns = [TurnView(role="user", text="What can you do?"), TurnView(role="agent", text=long_a),
             TurnView(role="user", text="And the stock?"), TurnView(role="agent", text=long_b)]
    variables = ExtractorInput(trace=TraceView(trace_id="tr-1", turns=turns)).model_dump()
    client.structured("extractor", PROMPT_EXTRACTOR, variables, ExtractorOutput)

    sent = fake.requests[0]
    assert request_tokens(sent) <= 3000
    got = [t["text"] for t in sent.variables["trace"]["turns"]]
    assert got[0] == "What can you do?" and got[2] == "And the stock?"  # short turns untouched
    caps = set()
    for original, cut in ((long_a, got[1]), (long_b, got[3])):
        match = MARKER.search(cut)
        assert match is not None
        n = int(match.group(1))
        cap = len(original) - n
        caps.add(cap)
        assert cut == original[: math.ceil(cap / 2)] + marker(n) + original[len(original) - cap // 2:]
        assert cut.startswith(original[:20]) and cut.endswith(original[-5:])
    assert len(caps) == 1  # one cap for every text
    cap = caps.pop()
    assert cap >= MIN_KEEP
    # the largest cap that fits: one character more and the request is over its budget
    template = load_prompt(PROMPT_EXTRACTOR, PROMPTS)
    wider = [t if len(t) <= cap + 1 + SLACK else t[: math.ceil((cap + 1) / 2)] + marker(len(t) - cap - 1)
             + t[len(t) - (cap + 1) // 2:] for t in (x.text for x in turns)]
    wider_vars = {"trace": {**sent.variables["trace"],
                            "turns": [{"role": t.role, "text": w} for t, w in zip(turns, wider, strict=True)]}}
    assert tokens_with(sent, template.render(wider_vars)) > 3000
    assert sent.messages[0] == template.render(variables)[0]

    row = one_row(client)
    assert row.cut_items == 0
    assert row.cut_rule == f"context-v1: cut the middle of 2 texts to {cap} characters"
    assert row.cut_chars == contents(template.render(variables)) - contents(sent.messages) > 0


def test_a_large_tool_output_in_a_raw_chat_is_cut_in_the_middle(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("agent", ["done"])
    client = client_for(tmp_path, registry, context_tokens=3000, max_output_tokens=500)
    system = "You are a support agent. " * 40
    tool_output = '{"orders": [' + ", ".join(f'{{"id": {i}, "status": "shipped"}}' for i in range(1500)) + "]}"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "list my orders"},
                {"role": "tool", "tool_call_id": "c1", "content": tool_output}]
    client.chat("agent", messages, model="fake/agent")
    sent = fake.requests[0]
    assert request_tokens(sent) <= 2500
    assert sent.messages[0] == messages[0] and sent.messages[1] == messages[1]
    assert MARKER.search(sent.messages[2]["content"]) and sent.messages[2]["tool_call_id"] == "c1"
    row = one_row(client)
    assert row.cut_rule.startswith("context-v1: cut the middle of 1 texts to ")
    assert row.cut_chars == contents(messages) - contents(sent.messages) > 0


def test_trusted_inputs_over_the_budget_fail_the_call_and_its_row_says_why(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("planner", [PLAN])
    client = client_for(tmp_path, registry, context_tokens=3000, max_output_tokens=500)
    inp = planner_input(sessions=2, recent=2, reply_chars=100)
    inp.tester_facts = [f"fact {i}: the test account number {i} holds order #{i}" for i in range(400)]
    with pytest.raises(LLMError, match="llm.context_tokens"):
        client.structured("planner", PROMPT_PLANNER, inp.model_dump(), PlannerOutput)
    assert fake.requests == []
    row = one_row(client)
    assert row.error is not None and row.error.startswith("ContextOverflow: prompt 'planner' needs about")


def test_a_model_window_overrides_the_default_one(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("planner", [PLAN])
    client = client_for(tmp_path, registry, context_tokens_by_model={"fake/planner": 6000}, max_output_tokens=1000)
    client.structured("planner", PROMPT_PLANNER, planner_input(30, 10, 1500).model_dump(), PlannerOutput)
    assert request_tokens(fake.requests[0]) <= 5000 and one_row(client).cut_items > 0


def test_the_cache_key_changes_only_when_the_budget_changes_the_request(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("planner", [PLAN] * 3)
    variables = planner_input(sessions=30, recent=10, reply_chars=1500).model_dump()

    def call(**llm: Any) -> bool:
        client = client_for(tmp_path, registry, cache=True, **llm)
        client.structured("planner", PROMPT_PLANNER, variables, PlannerOutput)
        return one_row(client).cache_hit

    assert call(context_tokens=32000) is False
    assert call(context_tokens=64000) is True  # both windows send the same request: one key
    assert call(context_tokens=6000, max_output_tokens=1000) is False  # a cut request: another key
    assert call(context_tokens=6000, max_output_tokens=1000) is True
    assert len(fake.requests) == 2


def test_a_window_without_room_for_the_answer_is_a_one_line_config_error(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("llm:\n  max_output_tokens: 4096\n  context_tokens: 4000\n")
    with pytest.raises(UserError) as info:
        config.load_run_config(path)
    text = str(info.value)
    assert "llm.context_tokens" in text and "max_output_tokens (4096)" in text and "\n" not in text


def test_a_provider_without_a_window_gets_the_whole_request(tmp_path: Path) -> None:
    """A provider class declaring ``context_limited = False`` (the offline stand-in: rules over the
    rendered inputs, no token window) is never cut: the budget is a real model's window. Before,
    ``adat spec demo`` stopped in ContextOverflow on the stand-in's PromptSmith request."""
    registry = ProviderRegistry()
    fake = registry.register_fake("planner", [PLAN, PLAN])
    client = client_for(tmp_path, registry, context_tokens=3000, max_output_tokens=500)
    inp = planner_input(sessions=2, recent=2, reply_chars=100)
    inp.tester_facts = [f"fact {i}: the test account number {i} holds order #{i}" for i in range(400)]
    fake.context_limited = False  # type: ignore[attr-defined]
    client.structured("planner", PROMPT_PLANNER, inp.model_dump(), PlannerOutput)
    sent = fake.requests[0]
    assert all(f"fact {i}:" in sent.messages[-1]["content"] for i in (0, 399))
    row = one_row(client)
    assert row.error is None and not row.cut_rule
    fake.context_limited = True  # type: ignore[attr-defined]
    with pytest.raises(LLMError, match="llm.context_tokens"):  # the same request, a provider with a window
        client.structured("planner", PROMPT_PLANNER, inp.model_dump(), PlannerOutput)


def test_the_offline_stand_in_declares_no_window() -> None:
    from adat.llm.providers.provider_registry import plugins

    assert plugins()["offline"].load().context_limited is False
