"""Shared fixtures: the shipped retail database and a reference agent on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from adat_reference.agent import ReferenceAgent
from adat_reference.retail import RetailDB, default_db_path
from tests.test_agents.scenarios import Finder

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"


@pytest.fixture(scope="session")
def retail_db() -> RetailDB:
    return RetailDB.load(default_db_path())


@pytest.fixture(scope="session")
def finder(retail_db: RetailDB) -> Finder:
    return Finder(retail_db)


@pytest.fixture()
def converse(retail_db: RetailDB) -> Callable[..., tuple[ReferenceAgent, str, list[str]]]:
    """Run messages in a fresh session: (agent, session id, replies)."""

    def run(messages: list[str], fault: str | None = None,
            db: RetailDB | None = None) -> tuple[ReferenceAgent, str, list[str]]:
        agent = ReferenceAgent(db or retail_db, fault=fault)
        session = agent.reset()
        return agent, session, [agent.invoke(session, m).text for m in messages]

    return run
