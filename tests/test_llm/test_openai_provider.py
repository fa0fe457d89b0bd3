"""The openai provider through the REAL openai client against a local chat-completions server."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.llm import LLMClient, LLMError
from adat.llm.providers.openai_chat import parse_retry_after
from adat.records import LLMCall
from tests.support.chat_server import ChatServer
from tests.test_llm.conftest import Answer

VARS = {"question": "How many orders?", "reply": "You have 3 orders."}


def make_client(cfg: RunConfig, prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> LLMClient:
    return LLMClient(cfg, "run-1", prompts_dir=prompts_dir, cache_dir=tmp_path / "cache", sleep=sleeps.append)


def only_row(client: LLMClient) -> LLMCall:
    rows = client.drain_calls()
    assert len(rows) == 1, rows
    assert client.drain_calls() == []
    return rows[0]


def test_plain_content(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig], prompts_dir: Path,
                       sleeps: list[float], tmp_path: Path, api_key: str) -> None:
    chat_server.push_content("three", prompt_tokens=40, completion_tokens=2)
    client = make_client(openai_cfg(), prompts_dir, sleeps, tmp_path)
    assert client.text("judge", "answer", VARS) == "three"
    sent = chat_server.requests[0]
    assert sent.headers["authorization"] == f"Bearer {api_key}"
    assert sent.body["model"] == "gpt-4o-mini"
    assert "response_format" not in sent.body
    assert "You have 3 orders." in sent.body["messages"][1]["content"]
    row = only_row(client)
    assert (row.provider, row.model, row.role, row.prompt_id, row.prompt_version) == (
        "openai", "gpt-4o-mini", "judge", "answer", "2")
    assert (row.input_tokens, row.output_tokens, row.retries, row.error, row.cache_hit) == (40, 2, 0, None, False)
    assert row.latency_s > 0
    assert row.cost_usd == pytest.approx((40 * 0.15 + 2 * 0.60) / 1e6)


def test_json_schema_output_is_validated(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                         prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_json({"answer": 3, "note": "counted"})
    client = make_client(openai_cfg(), prompts_dir, sleeps, tmp_path)
    assert client.structured("judge", "answer", VARS, Answer) == Answer(answer=3, note="counted")
    fmt = chat_server.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Answer" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["required"] == ["answer", "note"] and schema["additionalProperties"] is False
    row = only_row(client)
    assert row.error is None and not row.repaired and row.input_tokens > 0 and row.output_tokens > 0


def test_tool_calls(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig], prompts_dir: Path,
                    sleeps: list[float], tmp_path: Path) -> None:
    tools = [{"type": "function", "function": {
        "name": "get_order", "description": "look up an order",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}}]
    chat_server.push_tool_calls([("get_order", {"order_id": "#W1"})])
    client = make_client(openai_cfg(), prompts_dir, sleeps, tmp_path)
    response = client.chat("agent", [{"role": "user", "content": "where is #W1?"}], model="openai/my-agent",
                           tools=tools)
    assert response.content is None and response.finish_reason == "tool_calls"
    assert [(c.id, c.name, json.loads(c.arguments)) for c in response.tool_calls] == [
        ("call_0", "get_order", {"order_id": "#W1"})]
    assert chat_server.requests[0].body["tools"] == tools
    row = only_row(client)
    assert (row.role, row.model, row.prompt_id, row.priced, row.cost_usd) == ("agent", "my-agent", "", False, 0.0)


def test_429_with_retry_after_is_retried(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                         prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_status(429, headers={"Retry-After": "7"})
    chat_server.push_json({"answer": 1})
    client = make_client(openai_cfg(), prompts_dir, sleeps, tmp_path)
    assert client.structured("judge", "answer", VARS, Answer).answer == 1
    assert len(sleeps) == 1 and sleeps[0] >= 7.0
    assert client.provider_calls == 2 and len(chat_server.requests) == 2
    row = only_row(client)
    assert row.retries == 1 and row.error is None


def test_retry_after_is_capped_by_backoff_max(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                              prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_status(429, headers={"Retry-After": "3600"})
    chat_server.push_content("ok")
    client = make_client(openai_cfg(backoff_max_s=4.0), prompts_dir, sleeps, tmp_path)
    assert client.text("judge", "answer", VARS) == "ok"
    assert sleeps == [4.0]


def test_500_is_retried_with_growing_backoff(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                             prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_status(500)
    chat_server.push_status(503)
    chat_server.push_json({"answer": 2})
    client = make_client(openai_cfg(max_retries=3, backoff_base_s=0.5), prompts_dir, sleeps, tmp_path)
    assert client.structured("judge", "answer", VARS, Answer).answer == 2
    assert len(sleeps) == 2
    assert 0 <= sleeps[0] <= 0.5 and 0 <= sleeps[1] <= 1.0  # full jitter under 0.5 * 2**attempt
    assert only_row(client).retries == 2


def test_retries_exhausted_is_recorded(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                       prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    for _ in range(3):
        chat_server.push_status(502)
    client = make_client(openai_cfg(max_retries=2), prompts_dir, sleeps, tmp_path)
    with pytest.raises(LLMError, match="gave up after 3 attempts"):
        client.text("judge", "answer", VARS)
    row = only_row(client)
    assert row.retries == 2 and row.error is not None and "502" in row.error


def test_4xx_is_not_retried(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig], prompts_dir: Path,
                            sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_status(400, message="bad model name")
    client = make_client(openai_cfg(), prompts_dir, sleeps, tmp_path)
    with pytest.raises(LLMError, match="HTTP 400.*bad model name"):
        client.text("judge", "answer", VARS)
    assert sleeps == [] and client.provider_calls == 1
    assert "400" in (only_row(client).error or "")


def test_malformed_json_is_repaired(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                    prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_malformed('{"answer": 4,, }', prompt_tokens=10, completion_tokens=5)
    chat_server.push_json({"answer": 4}, prompt_tokens=20, completion_tokens=6)
    client = make_client(openai_cfg(), prompts_dir, sleeps, tmp_path)
    assert client.structured("judge", "answer", VARS, Answer).answer == 4
    repair = chat_server.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"answer": 4,, }'}
    assert "not valid JSON" in repair[-1]["content"] and "corrected" in repair[-1]["content"]
    assert chat_server.requests[1].body["response_format"] == chat_server.requests[0].body["response_format"]
    row = only_row(client)  # the repair is folded into the call's row
    assert row.repaired and row.error is None
    assert (row.input_tokens, row.output_tokens) == (30, 11)


def test_schema_mismatch_then_failed_repair_is_recorded(chat_server: ChatServer,
                                                        openai_cfg: Callable[..., RunConfig], prompts_dir: Path,
                                                        sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_json({"answer": "many"})
    chat_server.push_malformed("still not json")
    client = make_client(openai_cfg(cache=True), prompts_dir, sleeps, tmp_path)
    with pytest.raises(LLMError, match="after one repair"):
        client.structured("judge", "answer", VARS, Answer)
    assert "answer" in chat_server.requests[1].body["messages"][-1]["content"]  # names the bad field
    row = only_row(client)
    assert row.repaired and row.error is not None and "after one repair" in row.error
    # a failed answer is never cached: the next call asks the provider again
    chat_server.push_json({"answer": 5})
    assert client.structured("judge", "answer", VARS, Answer).answer == 5
    assert not only_row(client).cache_hit


def test_timeout_is_retried_then_recorded(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                          prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_hang(10)
    chat_server.push_content("on time")
    client = make_client(openai_cfg(timeout_s=0.3, max_retries=1), prompts_dir, sleeps, tmp_path)
    assert client.text("judge", "answer", VARS) == "on time"
    assert only_row(client).retries == 1

    chat_server.push_hang(10)
    chat_server.push_hang(10)
    with pytest.raises(LLMError, match="timeout"):
        client.text("judge", "answer", VARS)
    row = only_row(client)
    assert row.retries == 1 and "timeout" in (row.error or "") and row.latency_s >= 0.5


def test_connection_error_is_transient(openai_cfg: Callable[..., RunConfig], prompts_dir: Path,
                                       sleeps: list[float], tmp_path: Path) -> None:
    with ChatServer() as dead:
        url = dead.base_url
    client = make_client(openai_cfg(base_url=url, max_retries=1), prompts_dir, sleeps, tmp_path)
    with pytest.raises(LLMError, match="connection error"):
        client.text("judge", "answer", VARS)
    assert len(sleeps) == 1 and only_row(client).retries == 1


def test_cache_hit_makes_no_provider_call(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                          prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_json({"answer": 9}, prompt_tokens=50, completion_tokens=5)
    cfg = openai_cfg(cache=True)
    first = make_client(cfg, prompts_dir, sleeps, tmp_path)
    assert first.structured("judge", "answer", VARS, Answer).answer == 9
    second = make_client(cfg, prompts_dir, sleeps, tmp_path)  # a later run, same cache dir
    assert second.structured("judge", "answer", VARS, Answer).answer == 9
    assert second.provider_calls == 0 and len(chat_server.requests) == 1
    row = only_row(second)
    assert row.cache_hit and row.cost_usd == 0.0 and row.error is None
    assert (row.input_tokens, row.output_tokens) == (50, 5)
    files = list((tmp_path / "cache" / "llm").glob("*/*.json"))
    assert len(files) == 1 and files[0].parent.name == files[0].stem[:2]


def test_request_parameters_sent(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                 prompts_dir: Path, sleeps: list[float], tmp_path: Path) -> None:
    chat_server.push_content("x")
    client = make_client(openai_cfg(temperature=0.3, max_output_tokens=321), prompts_dir, sleeps, tmp_path)
    client.text("judge", "answer", VARS)
    body = chat_server.requests[0].body
    assert body["temperature"] == 0.3 and body["max_tokens"] == 321  # local servers know max_tokens
    assert "max_completion_tokens" not in body


def test_parse_retry_after_forms() -> None:
    future = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert 25 <= (parse_retry_after({"retry-after": future}) or 0) <= 30
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_official_endpoint_uses_max_completion_tokens() -> None:
    from adat.llm.providers.openai_chat import OpenAIProvider

    assert OpenAIProvider(None, "sk-x", 1.0)._tokens_param == "max_completion_tokens"
    assert OpenAIProvider("https://api.openai.com/v1", "sk-x", 1.0)._tokens_param == "max_completion_tokens"
    assert OpenAIProvider("http://127.0.0.1:8000/v1", "sk-x", 1.0)._tokens_param == "max_tokens"
