"""Runs fail when their models do (issue 29): with every tester call answered HTTP 500, or with a
discovery whose extractor finds no statement, `adat run` ends the run `failed`, exits non-zero and
says why in one line naming the stage and the role; no test is presented as a result."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from adat.serving import serve_agent
from adat.warehouse import read_records
from adat_reference.agent import ReferenceAgent
from tests.support.chat_server import ChatServer, Reply
from tests.test_flows.test_adat_run_http_openai import adat_run, scripted_model

pytestmark = pytest.mark.slow

FAST_LLM = {"api_key_env": "ADAT_TEST_KEY", "max_retries": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.05}


def _run(tmp_path: Path, run_id: str, responder: Any) -> tuple[Any, float]:
    server, agent_url = serve_agent(ReferenceAgent())
    try:
        with ChatServer() as chat:
            chat.responder = responder
            started = time.monotonic()
            proc = adat_run(tmp_path, run_id, {"type": "http", "base_url": agent_url}, chat.base_url, check=False,
                            llm={**FAST_LLM, "base_url": chat.base_url})
            return proc, time.monotonic() - started
    finally:
        server.stop()


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_every_call_answered_500_fails_the_run_naming_the_role(tmp_path: Path) -> None:
    proc, took = _run(tmp_path, "all-500", lambda _body: Reply(status=500, error_body={"error": {"message": "boom"}}))
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-3000:]
    lines = _error_lines(proc.stderr)
    assert len(lines) == 1, proc.stderr[-3000:]
    assert lines[0].startswith("error: run failed: discovery: 2 of 2 planner calls failed"), lines
    assert "HTTP 500" in lines[0]
    assert "Traceback" not in proc.stderr  # a run stopped by its models is no crash
    run = read_records(tmp_path / "data", "runs", run_id="all-500")[-1]
    assert run.status == "failed" and "planner" in run.error
    assert not (tmp_path / "data" / "runs" / "tests" / "run_id=all-500").exists()
    assert took < 120, f"a run whose every call fails took {took:.0f} s"


def test_a_discovery_with_no_statements_fails_the_run(tmp_path: Path) -> None:
    def no_statements(body: dict[str, Any]) -> Any:
        if body.get("response_format", {}).get("json_schema", {}).get("name") == "ExtractorOutput":
            return json.dumps({"statements": []})  # valid, useless (what a 270M model answered)
        return scripted_model(body)

    proc, _ = _run(tmp_path, "no-statements", no_statements)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-3000:]
    lines = _error_lines(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: run failed: extraction: produced 0 statements from 2 "
                                                   "discovery sessions ("), proc.stderr[-3000:]
    assert "; nothing is left to test" in lines[0]
    run = read_records(tmp_path / "data", "runs", run_id="no-statements")[-1]
    assert run.status == "failed" and "0 statements" in run.error
