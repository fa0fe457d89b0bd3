"""Nothing is lost on a crash: `adat run` killed (SIGKILL) in the middle of the transformation
phase, then started again with the same run id, keeps every attempt it had persisted and goes on
from there to a complete, consistent run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from adat.config import demo_config_path
from adat.warehouse import read_records

pytestmark = pytest.mark.slow

RUN = "crash-1"


def _start(config: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", "from adat.cli.main import app; app()", "run",
                             "--config", str(config)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_killed_run_resumes_without_losing_attempts(tmp_path: Path) -> None:
    cfg = yaml.safe_load(demo_config_path().read_text())
    cfg.update(run_id=RUN, data_dir=str(tmp_path / "data"))
    cfg["discovery"]["sessions"] = 12
    cfg["generation"]["n"] = 40
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "ADAT_CACHE_DIR": str(tmp_path / "cache")}
    parts = tmp_path / "data" / "runs" / "attempts" / f"run_id={RUN}"

    proc = _start(config, env)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if parts.is_dir() and len(list(parts.glob("*.parquet"))) >= 8:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed: " + proc.stderr.read()[-2000:]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()

    before = {(a.attempt_no, a.statement_id, a.instruction_id, a.applicable)
              for a in read_records(tmp_path / "data", "attempts", run_id=RUN)}
    assert len(before) >= 8

    again = _start(config, env)
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, out[-2000:] + err[-4000:]

    root = tmp_path / "data"
    attempts = read_records(root, "attempts", run_id=RUN)
    after = {(a.attempt_no, a.statement_id, a.instruction_id, a.applicable) for a in attempts}
    assert before <= after, "attempts persisted before the crash were lost or changed"
    numbers = sorted(a.attempt_no for a in attempts)
    assert numbers == list(range(1, len(numbers) + 1)), "attempt numbers are not contiguous"
    assert len(after) > len(before)
    tests = {t.test_id for t in read_records(root, "tests", run_id=RUN)}
    assert all(a.test_id in tests for a in attempts if a.test_id)
    verdicts = {v.execution_id for v in read_records(root, "verdicts", run_id=RUN)}
    assert {e.execution_id for e in read_records(root, "executions", run_id=RUN)} == verdicts
    assert read_records(root, "runs", run_id=RUN)[-1].status == "completed"
    # resumed, not redone: one transformation call per attempt (+ at most the one in flight)
    calls = [c for c in read_records(root, "llm_calls", run_id=RUN) if c.prompt_id == "generate_transformed"]
    assert len(attempts) <= len(calls) <= len(attempts) + 1
