"""The API key from the environment never reaches a Parquet file, a cache file, a log or an error."""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from adat.config import LLMSettings, RoleModels, RunConfig
from adat.llm import LLMClient, LLMError
from tests.support.chat_server import ChatServer
from tests.test_llm.conftest import Answer

SECRET = "sk-live-ADAT-canary-5b9e2f41c7d0a8e3"
VARS = {"question": "How many?", "reply": "Three."}


def test_api_key_never_stored_or_logged(tmp_path: Path, prompts_dir: Path, chat_server: ChatServer,
                                        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # root: adat, openai, httpx and httpcore at their chattiest
    monkeypatch.setenv("ADAT_CANARY_KEY", SECRET)
    cfg = RunConfig(
        models=RoleModels(judge="openai/gpt-4o-mini"),
        llm=LLMSettings(base_url=chat_server.base_url, api_key_env="ADAT_CANARY_KEY", timeout_s=0.3,
                        max_retries=1, cache=True),
    )
    cache_dir = tmp_path / "cache"
    client = LLMClient(cfg, "run-secret", prompts_dir=prompts_dir, cache_dir=cache_dir, sleep=lambda s: None)

    chat_server.push_status(429, headers={"Retry-After": "1"})
    chat_server.push_json({"answer": 3})
    assert client.structured("judge", "answer", VARS, Answer).answer == 3
    assert client.structured("judge", "answer", VARS, Answer).answer == 3  # cache hit
    chat_server.push_malformed()
    chat_server.push_json({"answer": 1})
    assert client.structured("judge", "answer", {"question": "again?", "reply": "no"}, Answer).answer == 1
    chat_server.push_hang(10)
    chat_server.push_content("late but fine")
    assert client.text("judge", "answer", {"question": "slow?", "reply": "yes"}) == "late but fine"

    errors: list[str] = []
    # The server echoes the key back, as real endpoints do on a bad key; it must be scrubbed.
    chat_server.push_status(401, message=f"Incorrect API key provided: {SECRET}")
    with pytest.raises(LLMError) as failed:
        client.text("judge", "answer", {"question": "fail?", "reply": "x"})
    errors.append("".join(traceback.format_exception(failed.value)))
    chat_server.push_status(500, message=f"upstream rejected {SECRET}")
    chat_server.push_status(503, message=f"upstream rejected {SECRET}")
    with pytest.raises(LLMError) as failed:
        client.text("judge", "answer", {"question": "down?", "reply": "x"})
    errors.append("".join(traceback.format_exception(failed.value)))
    logging.getLogger("adat.test").exception("recorded failure", exc_info=failed.value)

    # the key really was used on the wire, so the test can fail
    assert chat_server.requests[0].headers["authorization"] == f"Bearer {SECRET}"

    rows = client.drain_calls()
    assert len(rows) == 6 and sum(r.error is not None for r in rows) == 2 and any(r.cache_hit for r in rows)
    parquet = tmp_path / "warehouse" / "llm_calls" / "run_id=run-secret" / "part-0.parquet"
    parquet.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([r.model_dump() for r in rows]), parquet)

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert parquet in files and len(list(cache_dir.rglob("*.json"))) == 3
    leaks = [str(p) for p in files if SECRET.encode() in p.read_bytes()]
    assert leaks == []
    assert all(SECRET not in r.model_dump_json() for r in rows)
    assert caplog.records, "nothing was logged; the log check would be vacuous"
    assert SECRET not in caplog.text
    assert all(SECRET not in record.getMessage() for record in caplog.records)
    assert all(SECRET not in text for text in errors)
    assert "***" in (rows[-2].error or "")  # the echoed key was replaced, not silently dropped
