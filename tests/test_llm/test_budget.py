"""Budgets in the one client wrapper: calls, tokens and dollars per run and per phase."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from adat.config import BudgetConfig, LLMSettings, RoleModels, RunConfig
from adat.errors import UserError
from adat.llm import LLMClient, LLMError, ProviderRegistry
from adat.llm.budget import BudgetExhausted, BudgetMeter, phase, stopped_in
from adat.records import LLMCall

VARS = {"question": "q", "reply": "four"}


def budget_client(tmp_path: Path, prompts_dir: Path, budget: dict, *, cache: bool = False,
                  earlier: list[LLMCall] = (), phase_name: str = "judging-phase") -> tuple[LLMClient, list[int]]:
    cfg = RunConfig(models=RoleModels(judge="fake/judge"),
                    llm=LLMSettings(cache=cache, prices_usd_per_mtok={"fake/judge": (1000.0, 1000.0)}),
                    budget=BudgetConfig.model_validate(budget))
    registry = ProviderRegistry()
    registry.register_fake("judge", lambda request: '{"answer": 1}')
    sunk: list[int] = []
    client = LLMClient(cfg, "run-b", prompts_dir=prompts_dir, cache_dir=tmp_path / "cache", registry=registry,
                       budget=BudgetMeter(cfg.budget, phase_name, earlier), sink=lambda: sunk.append(1))
    return client, sunk


def test_call_budget_stops_before_the_call_and_flushes(tmp_path: Path, prompts_dir: Path) -> None:
    client, sunk = budget_client(tmp_path, prompts_dir, {"max_calls": 3})
    for _ in range(3):
        client.text("judge", "answer", VARS)
    with pytest.raises(BudgetExhausted) as info:
        client.text("judge", "answer", VARS)
    assert not isinstance(info.value, LLMError)  # no stage may swallow it as one failed item
    assert info.value.scope == "run" and info.value.measure == "max_calls" and info.value.spent == 3
    assert sunk, "the rows so far are handed to the sink before the stop"
    rows = client.drain_calls()
    assert len(rows) == 3 and all(r.phase == "judging-phase" and r.error is None for r in rows)


def test_dollar_budget_counts_cost_of_earlier_rows(tmp_path: Path, prompts_dir: Path) -> None:
    earlier = [LLMCall(call_id="x", run_id="run-b", role="judge", provider="fake", model="judge", cost_usd=0.5,
                       ts=datetime.now(UTC), phase="judging-phase")]
    client, _ = budget_client(tmp_path, prompts_dir, {"max_usd": 0.6}, earlier=earlier)
    spent = 0
    with pytest.raises(BudgetExhausted) as info:
        for _ in range(1000):
            client.text("judge", "answer", VARS)
            spent += 1
    assert 0 < spent < 1000
    assert info.value.measure == "max_usd" and info.value.spent >= 0.6
    assert sum(r.cost_usd for r in client.drain_calls()) + 0.5 == pytest.approx(info.value.spent)
    assert stopped_in(info.value).startswith("judging-phase (run max_usd $")


def test_phase_budget_and_cache_hits_are_free(tmp_path: Path, prompts_dir: Path) -> None:
    client, _ = budget_client(tmp_path, prompts_dir, {"phases": {"audit": {"max_tokens": 1}}}, cache=True,
                              phase_name="audit")
    client.text("judge", "answer", VARS)  # the first call spends tokens
    client.text("judge", "answer", VARS)  # a cache hit: free, served
    with pytest.raises(BudgetExhausted, match="phase audit reached max_tokens"):
        client.text("judge", "answer", {"question": "other", "reply": "x"})
    other, _ = budget_client(tmp_path, prompts_dir, {"phases": {"audit": {"max_tokens": 1}}}, phase_name="regression")
    other.text("judge", "answer", VARS)  # another phase is not limited


def test_phase_comes_from_the_context(tmp_path: Path, prompts_dir: Path) -> None:
    cfg = RunConfig(models=RoleModels(judge="fake/judge"), llm=LLMSettings(cache=False))
    registry = ProviderRegistry()
    registry.register_fake("judge", lambda request: "ok")
    with phase("grounding"):
        client = LLMClient(cfg, "r", prompts_dir=prompts_dir, cache_dir=tmp_path, registry=registry)
    client.text("judge", "answer", VARS)
    assert client.drain_calls()[0].phase == "grounding"


def test_unknown_phase_is_a_config_error(tmp_path: Path) -> None:
    from adat.config import load_run_config

    path = tmp_path / "run.yaml"
    path.write_text("budget:\n  max_usd: 2.5\n  phases:\n    discovry: {max_calls: 3}\n")
    with pytest.raises(UserError, match="budget.phases.discovry"):
        load_run_config(path)
    assert RunConfig().budget.max_usd is None and RunConfig().budget.phases == {}  # unlimited by default
