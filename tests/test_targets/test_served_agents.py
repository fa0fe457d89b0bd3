"""Both built-in agents served with serve_agent and driven through the http target.

Each runs a short conversation that performs a write (cancelling a pending order); the end
state is read from the served agent object with the evaluation-only ``session_db``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adat.config import HttpTarget as HttpTargetConfig
from adat.serving import serve_agent
from adat.targets.base import Target
from adat.targets.http import HttpTarget
from adat_reference.agent import ReferenceAgent

from .llm_agent_script import CancelCase, cancel_script, make_agent, pending_order_case


@pytest.fixture(scope="module")
def case() -> CancelCase:
    return pending_order_case()


def _served(agent: Target) -> Iterator[HttpTarget]:
    server, url = serve_agent(agent)
    try:
        target = HttpTarget(HttpTargetConfig(base_url=url, timeout_s=30.0))
        target.check()
        yield target
    finally:
        server.stop()


def test_llm_agent_cancels_an_order_over_http(tmp_path: Path, case: CancelCase) -> None:
    agent, fake, _client = make_agent(tmp_path, cancel_script(case))
    for target in _served(agent):
        session = target.reset()
        question = target.invoke(session, f"Please cancel order {case.order_id}; my email is {case.email}.").text
        assert f"Order {case.order_id} is pending" in question
        assert agent.session_db(session).orders[case.order_id].status == "pending"
        answer = target.invoke(session, "yes")
        assert answer.text == f"Done: order {case.order_id} is cancelled."
        assert [c.name for c in answer.tool_calls] == [c.name for c in agent.tool_calls(session) if c.turn == 1]
        assert "cancel_pending_order" in [c.name for c in answer.tool_calls]
        assert agent.session_db(session).orders[case.order_id].status == "cancelled"
        assert sum(call.error for call in agent.tool_calls(session)) == 3  # the scripted bad calls
        other = target.reset()
        assert agent.session_db(other).orders[case.order_id].status == "pending"


def test_reference_agent_cancels_an_order_over_http(case: CancelCase) -> None:
    agent = ReferenceAgent()
    for target in _served(agent):
        session = target.reset()
        replies = [
            target.invoke(session, f"Hi, I'd like to cancel order {case.order_id}.").text,
            target.invoke(session, f"My email is {case.email}.").text,
            target.invoke(session, "I no longer need it.").text,
        ]
        assert agent.session_db(session).orders[case.order_id].status == "pending", replies
        assert case.order_id in replies[-1] and "yes" in replies[-1].lower(), replies
        answer = target.invoke(session, "yes")
        done = answer.text
        assert agent.session_db(session).orders[case.order_id].status == "cancelled", [*replies, done]
        # the reply carries the turn's tool calls over HTTP (serve-agent's default ``tool_calls`` path)
        cancel = [c for c in answer.tool_calls if c.name == "cancel_pending_order"]
        assert len(cancel) == 1 and cancel[0].arguments["order_id"] == case.order_id and cancel[0].error is None
        assert cancel[0].result["status"] == "cancelled"
        assert [c.order for c in answer.tool_calls] == list(range(len(answer.tool_calls)))
        assert agent.session_db(session).orders[case.order_id].cancel_reason == "no longer needed"
        assert any(rule.startswith("auth") for rule, _side, _turn in agent.side_log(session))
