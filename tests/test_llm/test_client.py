"""The client wrapper with fake providers: scripts, retries, cache, accounting, registry."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adat.config import LLMSettings, RoleModels, RunConfig
from adat.errors import UserError
from adat.llm import LLMClient, LLMError, LLMRequest, LLMResponse, ProviderRegistry, TransientProviderError
from tests.test_llm.conftest import Answer

VARS = {"question": "q", "reply": "four"}


def fake_client(tmp_path: Path, prompts_dir: Path, registry: ProviderRegistry, sleeps: list[float] | None = None,
                **llm: object) -> LLMClient:
    cfg = RunConfig(models=RoleModels(judge="fake/judge"),
                    llm=LLMSettings.model_validate({"backoff_base_s": 1.0, **llm}))
    return LLMClient(cfg, "run-f", prompts_dir=prompts_dir, cache_dir=tmp_path / "cache", registry=registry,
                     sleep=(sleeps if sleeps is not None else []).append)


def test_fake_list_is_consumed_in_order(tmp_path: Path, prompts_dir: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("judge", [{"answer": 1}, Answer(answer=2), '{"answer": 3}'])
    client = fake_client(tmp_path, prompts_dir, registry, cache=False)
    got = [client.structured("judge", "answer", VARS, Answer).answer for _ in range(3)]
    assert got == [1, 2, 3]
    assert len(fake.requests) == 3 and fake.requests[0].variables == VARS
    assert fake.requests[0].prompt_id == "answer" and fake.requests[0].response_schema is not None
    rows = client.drain_calls()
    assert len(rows) == 3 and all(r.provider == "fake" and r.cost_usd == 0.0 and r.priced for r in rows)
    assert all(r.input_tokens > 0 and r.output_tokens > 0 for r in rows)
    with pytest.raises(LLMError, match="ran out of scripted outputs"):
        client.text("judge", "answer", VARS)
    assert "ran out" in (client.drain_calls()[0].error or "")


def test_fake_generator_and_callable(tmp_path: Path, prompts_dir: Path) -> None:
    def numbers() -> Iterator[str]:
        n = 0
        while True:
            n += 1
            yield f"reply {n}"

    def echo(request: LLMRequest) -> LLMResponse:
        return LLMResponse(content=str(request.messages[-1]["content"]).upper(), input_tokens=7, output_tokens=1)

    registry = ProviderRegistry()
    registry.register_fake("judge", numbers())
    registry.register_fake("echo", echo)
    client = fake_client(tmp_path, prompts_dir, registry, cache=False)
    assert [client.text("judge", "answer", VARS) for _ in range(2)] == ["reply 1", "reply 2"]
    reply = client.chat("agent", [{"role": "user", "content": "hi"}], model="fake/echo")
    assert reply.content == "HI"
    rows = client.drain_calls()
    assert [r.model for r in rows] == ["judge", "judge", "echo"] and rows[-1].input_tokens == 7


def test_fake_exception_outputs_drive_retries(tmp_path: Path, prompts_dir: Path) -> None:
    registry = ProviderRegistry()
    registry.register_fake("judge", [TransientProviderError("busy", retry_after_s=2.5), "fine"])
    sleeps: list[float] = []
    client = fake_client(tmp_path, prompts_dir, registry, sleeps, cache=False)
    assert client.text("judge", "answer", VARS) == "fine"
    assert len(sleeps) == 1 and sleeps[0] >= 2.5
    assert client.provider_calls == 2 and client.drain_calls()[0].retries == 1


def test_cache_hit_cache_off_and_cache_tag(tmp_path: Path, prompts_dir: Path) -> None:
    registry = ProviderRegistry()
    fake = registry.register_fake("judge", (f'{{"answer": {i}}}' for i in range(100)))
    client = fake_client(tmp_path, prompts_dir, registry)
    first = client.structured("judge", "answer", VARS, Answer)
    again = client.structured("judge", "answer", VARS, Answer)
    assert first == again and client.provider_calls == 1 and len(fake.requests) == 1
    tagged = client.structured("judge", "answer", VARS, Answer, cache_tag="repeat-2")
    assert tagged.answer == 1 and client.provider_calls == 2
    other = client.structured("judge", "answer", {"question": "q2", "reply": "four"}, Answer)
    assert other.answer == 2
    rows = client.drain_calls()
    assert [r.cache_hit for r in rows] == [False, True, False, False]
    uncached = fake_client(tmp_path, prompts_dir, registry, cache=False)
    assert uncached.structured("judge", "answer", VARS, Answer).answer == 3
    assert uncached.provider_calls == 1


def test_damaged_cache_entry_is_a_miss(tmp_path: Path, prompts_dir: Path) -> None:
    registry = ProviderRegistry()
    registry.register_fake("judge", ['{"answer": 1}', '{"answer": 2}'])
    client = fake_client(tmp_path, prompts_dir, registry)
    client.structured("judge", "answer", VARS, Answer)
    [entry] = (tmp_path / "cache" / "llm").glob("*/*.json")
    entry.write_text("{ truncated")
    assert client.structured("judge", "answer", VARS, Answer).answer == 2
    assert client.provider_calls == 2


def test_concurrent_calls_each_get_one_row(tmp_path: Path, prompts_dir: Path) -> None:
    registry = ProviderRegistry()
    registry.register_fake("judge", lambda request: {"answer": len(request.variables["question"])})
    client = fake_client(tmp_path, prompts_dir, registry, cache=False)
    results: list[int] = []

    def work(i: int) -> None:
        results.append(client.structured("judge", "answer", {"question": "x" * i, "reply": "r"}, Answer).answer)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(1, 17)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == list(range(1, 17))
    rows = client.drain_calls()
    assert len(rows) == 16 and len({r.call_id for r in rows}) == 16 and client.provider_calls == 16


def test_unknown_provider_lists_known_ones(tmp_path: Path, prompts_dir: Path) -> None:
    client = LLMClient(RunConfig(models=RoleModels(judge="acme/big")), "r", prompts_dir=prompts_dir,
                       cache_dir=tmp_path)
    with pytest.raises(UserError, match="unknown provider 'acme'.*fake, offline, openai"):
        client.text("judge", "answer", VARS)
    with pytest.raises(UserError, match="not 'provider/model'"):
        client.chat("agent", [], model="gpt-4o")
    with pytest.raises(UserError, match="no fake provider named 'nope'"):
        client.chat("agent", [], model="fake/nope")


def test_missing_api_key_names_the_variable(tmp_path: Path, prompts_dir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADAT_NO_SUCH_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    cfg = RunConfig(models=RoleModels(judge="openai/gpt-4o"), llm=LLMSettings(api_key_env="ADAT_NO_SUCH_KEY"))
    client = LLMClient(cfg, "r", prompts_dir=prompts_dir, cache_dir=tmp_path)
    with pytest.raises(UserError, match="ADAT_NO_SUCH_KEY") as err:
        client.text("judge", "answer", VARS)
    assert err.value.field == "llm.api_key_env"


def test_api_key_from_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADAT_DOTENV_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ADAT_DOTENV_KEY=sk-from-dotenv\n")
    cfg = RunConfig(llm=LLMSettings(api_key_env="ADAT_DOTENV_KEY", base_url="http://127.0.0.1:9/v1"))
    _, _, provider = ProviderRegistry().create("openai/x", cfg)
    assert "sk-from-dotenv" not in repr(provider)
