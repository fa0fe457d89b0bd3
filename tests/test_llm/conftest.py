"""Fixtures for the LLM layer: a local chat server, a tiny prompt catalog and run configs."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from adat.config import LLMSettings, RoleModels, RunConfig
from tests.support.chat_server import ChatServer

TEST_KEY_ENV = "ADAT_TEST_LLM_KEY"

ANSWER_PROMPT = textwrap.dedent("""\
    id: answer
    version: 2
    role: judge
    description: Answer a question about an agent reply (test prompt).
    variables:
      - question
      - name: reply
        untrusted: true
        label: agent reply
    system: You answer questions about agent replies.
    user: |
      Question: {{ question }}
      Reply: {{ reply }}
      Answer as JSON.
    """)


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: int
    note: str = ""


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    with ChatServer() as server:
        yield server


@pytest.fixture
def prompts_dir(tmp_path: Path) -> Path:
    d = tmp_path / "prompts"
    d.mkdir()
    (d / "answer.yaml").write_text(ANSWER_PROMPT)
    return d


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    key = "sk-adat-test-7f3c9e1d2b4a"
    monkeypatch.setenv(TEST_KEY_ENV, key)
    return key


@pytest.fixture
def openai_cfg(chat_server: ChatServer, api_key: str) -> Callable[..., RunConfig]:
    """A run config whose judge role (and agent) talk to the local chat server."""

    def make(**llm: object) -> RunConfig:
        settings = {"base_url": chat_server.base_url, "api_key_env": TEST_KEY_ENV, "timeout_s": 5.0,
                    "max_retries": 2, "backoff_base_s": 0.5, "backoff_max_s": 30.0, "cache": False, **llm}
        return RunConfig(models=RoleModels(judge="openai/gpt-4o-mini"), llm=LLMSettings.model_validate(settings))

    return make
