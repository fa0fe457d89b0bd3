"""Discovery and extraction with offline/heuristic against the rule-based reference agent.

The statements' supporting replies must come from turns at which the agent's (evaluation-only)
side log shows rule evaluations, so the offline tester finds the agent's real boundaries.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import load_run_config
from adat.llm.client import LLMClient

REPO = Path(__file__).resolve().parents[2]

reference = pytest.importorskip("adat_reference.agent", reason="the reference agent is not available")
discovery = pytest.importorskip("adat.stages.discovery", reason="the discovery stage is not available")
extraction = pytest.importorskip("adat.stages.statements", reason="the extraction stage is not available")


def test_statements_sit_on_turns_where_the_agent_evaluated_rules(tmp_path: Path) -> None:
    cfg = load_run_config(REPO / "data" / "reference" / "demo.yaml")
    cfg = cfg.model_copy(update={"data_dir": str(tmp_path),
                                 "discovery": cfg.discovery.model_copy(update={"sessions": 16})})
    client = LLMClient(cfg, "it", cache_dir=tmp_path / "cache")
    agent = reference.ReferenceAgent()
    traces = discovery.discover(cfg, client, agent, "it")
    assert all(t.ended_by in ("met", "cannot", "turn_limit") for t in traces)
    statements = extraction.extract_statements(cfg, client, traces, "it")
    assert len(statements) >= 12
    by_trace = {t.trace_id: t for t in traces}
    rules: set[str] = set()
    for st in statements:
        session = by_trace[st.supporting_trace_id].session_id
        evaluated = {rule for rule, _side, turn in agent.side_log(session) if turn == st.supporting_turn // 2}
        assert evaluated, f"no rule evaluated at the supporting turn of: {st.text}"
        rules |= evaluated
    assert len(rules) >= 12
    assert {c.provider for c in client.drain_calls()} == {"offline"}
