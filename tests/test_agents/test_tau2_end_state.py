"""The reference agent, driven by scripted user turns, ends where the τ²-bench gold actions end."""

from __future__ import annotations

import json

import pytest

from adat_reference.agent import ReferenceAgent
from adat_reference.retail import WRITE_TOOLS, RetailDB, RetailTools
from tests.test_agents.conftest import SHARED
from tests.test_agents.tau2_scripts import TAU2_SCRIPTS

TAU2 = SHARED / "benchmarks" / "tau2" / "retail"
pytestmark = pytest.mark.skipif(not (TAU2 / "tasks.json").is_file(),
                                reason=f"τ²-bench retail data not found at {TAU2} (../shared is absent)")


@pytest.fixture(scope="module")
def tau2_db() -> RetailDB:
    return RetailDB.load(TAU2 / "db.json")


@pytest.fixture(scope="module")
def tau2_tasks() -> dict[str, dict]:
    return {task["id"]: task for task in json.loads((TAU2 / "tasks.json").read_text(encoding="utf-8"))}


def test_at_least_ten_tasks_are_scripted() -> None:
    assert len(TAU2_SCRIPTS) >= 10


@pytest.mark.parametrize("task_id", sorted(TAU2_SCRIPTS, key=int))
def test_agent_reaches_the_gold_end_state(task_id: str, tau2_db: RetailDB, tau2_tasks: dict[str, dict]) -> None:
    gold = tau2_db.copy_fresh()
    tools = RetailTools(gold)
    writes = [a for a in tau2_tasks[task_id]["evaluation_criteria"]["actions"] if a["name"] in WRITE_TOOLS]
    assert writes, "only tasks that change the database are scripted"
    for action in writes:
        tools.call(action["name"], action["arguments"])
    agent = ReferenceAgent(tau2_db)
    session = agent.reset()
    replies = [agent.invoke(session, message).text for message in TAU2_SCRIPTS[task_id]]
    assert agent.session_db(session).canonical_hash() == gold.canonical_hash(), "\n".join(replies)
    assert tau2_db.canonical_hash() != gold.canonical_hash()  # the task did change something
    made = [c.name for c in agent.tool_calls(session) if c.name in WRITE_TOOLS and c.error is None]
    assert made == [a["name"] for a in writes]
