"""Spend is recorded before it is spent (issue 29): `adat run` on the openai provider is killed
(SIGKILL, whole process group) while LLM calls are in flight, then run again with the same run id.
Every request the chat server received is accounted for in ``llm_calls`` afterwards: a row that
was answered and flushed, or a *pending* row folded from the request journal (sent, no answer
recorded). Retried requests (scripted 500s) are counted too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from adat.config import ROLES
from adat.serving import serve_agent
from adat.warehouse import read_records
from adat_reference.agent import ReferenceAgent
from tests.support.chat_server import ChatServer, Reply
from tests.test_flows.test_adat_run_http_openai import scripted_model

pytestmark = pytest.mark.slow

RUN = "spend-1"
KILL_AFTER = 14  # requests received before the kill (discovery is done; later stages call 4 at a time)


def _config(tmp_path: Path, llm_url: str, agent_url: str) -> Path:
    config = {"run_id": RUN, "data_dir": str(tmp_path / "data"), "target": {"type": "http", "base_url": agent_url},
              "models": dict.fromkeys(ROLES, "openai/scripted-model"),
              "llm": {"base_url": llm_url, "api_key_env": "ADAT_TEST_KEY", "max_retries": 2,
                      "backoff_base_s": 0.05, "backoff_max_s": 0.1, "concurrency": 4},
              "discovery": {"sessions": 2, "turn_limit": 4}, "generation": {"n": 2},
              "selector": {"max_attempts_cap": 12}}
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _start(config: Path, tmp_path: Path, prefect_api_url: str) -> subprocess.Popen[str]:
    # the test session's Prefect server (as with `adat server`): the subject is the spend journal,
    # not Prefect's temporary server, which would add ≈ 8 s to each of the two commands
    env = {**os.environ, "ADAT_TEST_KEY": "sk-local-test", "ADAT_CACHE_DIR": str(tmp_path / "cache"),
           "PREFECT_HOME": str(tmp_path / "prefect-home"), "PREFECT_API_URL": prefect_api_url}
    return subprocess.Popen([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                             str(config)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def test_requests_in_flight_at_a_kill_are_in_llm_calls_after_the_rerun(tmp_path: Path,
                                                                       prefect_api_url: str) -> None:
    arrived = threading.Event()
    seen = {"n": 0}
    lock = threading.Lock()

    def slow_model(body: dict[str, Any]) -> Reply | str:
        with lock:
            seen["n"] += 1
            n = seen["n"]
        if n % 5 == 0:  # every fifth request fails once: its retry is a request too
            return Reply(status=500, error_body={"error": {"message": "scripted 500"}})
        if n >= KILL_AFTER:
            arrived.set()
            time.sleep(1.5)  # still being answered when the process group is killed
        return scripted_model(body)

    server, agent_url = serve_agent(ReferenceAgent())
    try:
        with ChatServer() as chat:
            chat.responder = slow_model
            config = _config(tmp_path, chat.base_url, agent_url)
            proc = _start(config, tmp_path, prefect_api_url)
            assert arrived.wait(300), "the run never reached the kill point: " + (proc.stderr.read() if
                                                                                  proc.poll() is not None else "")
            time.sleep(0.3)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            received_at_kill = len(chat.requests)
            root = tmp_path / "data"
            journal = root / "_llm" / "journal" / f"{RUN}.jsonl"
            assert journal.is_file(), "no request journal survived the kill"
            rows_at_kill = read_records(root, "llm_calls", run_id=RUN)
            assert sum(1 + c.retries + c.repaired for c in rows_at_kill if not c.cache_hit) < received_at_kill, \
                "the kill lost no row: nothing was in flight"

            again = _start(config, tmp_path, prefect_api_url)
            out, err = again.communicate(timeout=600)
            assert again.returncode == 0, out[-2000:] + err[-4000:]
            received = len(chat.requests)
    finally:
        server.stop()

    calls = read_records(root, "llm_calls", run_id=RUN)
    assert read_records(root, "runs", run_id=RUN)[-1].status == "completed"
    pending = [c for c in calls if c.pending]
    assert pending, "no pending row: the requests in flight at the kill were not folded from the journal"
    assert all(c.error and c.error.startswith("pending") for c in pending)
    accounted = sum(1 + c.retries + c.repaired for c in calls if not c.cache_hit)
    # every received request has a row; a journaled request the kill stopped before it left may add one
    assert received <= accounted <= received + len(pending), (received, accounted, len(pending))
    assert len({c.call_id for c in calls}) == len(calls), "a call has two rows"
    assert not journal.exists(), "the journal was not folded and removed"
