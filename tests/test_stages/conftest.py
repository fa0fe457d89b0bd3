"""Fixtures for the stage tests: fake roles through the real LLMClient and a scripted target."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import ROLES, RoleModels, RunConfig
from adat.errors import TargetError
from adat.llm.client import LLMClient
from adat.llm.providers.fake import FakeOutputs, FakeProvider
from adat.llm.providers.provider_registry import ProviderRegistry
from adat.records import Statement, TestCase, Trace, Turn

REPO = Path(__file__).resolve().parents[2]
PROMPTS = REPO / "catalogs" / "prompts"
RUN = "run-test"


class ScriptedTarget:
    """A Target answering from a dict of canned replies (matched by substring of the message).

    A reply that is a :class:`TargetError` instance is raised instead; unmatched messages get
    ``default``. ``fail_reset`` makes ``reset`` raise.
    """

    agent_id = "scripted"

    def __init__(self, replies: dict[str, str | TargetError] | None = None, *, default: str = "OK.",
                 fail_reset: bool = False) -> None:
        self.replies = replies or {}
        self.default = default
        self.fail_reset = fail_reset
        self.sessions = 0
        self.received: list[tuple[str, str]] = []

    def reset(self) -> str:
        if self.fail_reset:
            raise TargetError("connection refused")
        self.sessions += 1
        return f"s{self.sessions}"

    def invoke(self, session_id: str, user_message: str) -> str:
        self.received.append((session_id, user_message))
        for key, reply in self.replies.items():
            if key in user_message:
                if isinstance(reply, TargetError):
                    raise reply
                return reply
        return self.default


class Roles:
    """Builds an LLMClient whose roles are ``fake/<role>`` providers scripted per test."""

    def __init__(self, tmp_path: Path, cfg: RunConfig) -> None:
        self.registry = ProviderRegistry()
        self.cfg = cfg.model_copy(deep=True, update={"models": RoleModels(**{r: f"fake/{r}" for r in ROLES})})
        self.cfg.llm.cache = False
        # A list script answers in call order, and concurrent calls have none: one call at a time
        # here; the concurrency tests raise it and answer from the request instead.
        self.cfg.llm.concurrency = 1
        self.tmp_path = tmp_path
        self.fakes: dict[str, FakeProvider] = {}

    def script(self, role: str, outputs: FakeOutputs) -> FakeProvider:
        self.fakes[role] = self.registry.register_fake(role, outputs)
        return self.fakes[role]

    def client(self) -> LLMClient:
        return LLMClient(self.cfg, RUN, prompts_dir=PROMPTS, cache_dir=self.tmp_path / "cache",
                         registry=self.registry)


@pytest.fixture
def cfg() -> RunConfig:
    return RunConfig(tester_facts=["user email: ann@example.com"])


@pytest.fixture
def roles(tmp_path: Path, cfg: RunConfig) -> Roles:
    return Roles(tmp_path, cfg)


def dialogue(*texts: str) -> list[Turn]:
    """Alternating user/agent turns starting with the user."""
    return [Turn(role="user" if i % 2 == 0 else "agent", text=t) for i, t in enumerate(texts)]


def make_trace(trace_id: str, *texts: str) -> Trace:
    return Trace(trace_id=trace_id, run_id=RUN, kind="discovery", turns=dialogue(*texts))


def make_statement(sid: str, order: int, *, rank: int | None = None, trace_id: str = "tr-1",
                   turn: int = 1, reply: str = "Only pending orders can be cancelled.",
                   grounded: bool = True, confidence: float = 0.9) -> Statement:
    return Statement(statement_id=sid, run_id=RUN, text=f"statement {sid}", condition=f"cond {sid}",
                     behavior=f"beh {sid}", supporting_trace_id=trace_id, supporting_turn=turn,
                     supporting_reply=reply, extraction_order=order, grounded=grounded,
                     confidence=confidence, rank=rank)


def make_test(test_id: str, hints: list[str], *, turn_limit: int = 10, statement_id: str | None = None,
              success: list[str] | None = None, failure: list[str] | None = None) -> TestCase:
    return TestCase(test_id=test_id, run_id=RUN, kind="plain", statement_id=statement_id, goal="g",
                    step_hints=hints, success_criteria=success or ["agent refuses"],
                    failure_criteria=failure or ["agent cancels"], turn_limit=turn_limit)

