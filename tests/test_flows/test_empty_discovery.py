"""A run that yields nothing says why in one line and exits non-zero (issue 28): offline, with no
``tester_facts``, the discovery sessions end at the agent's identification step, so extraction finds
no statement; ``adat run`` fails the run naming the stage, what it read and the missing facts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config, write_config

pytestmark = pytest.mark.slow


def test_no_tester_facts_fails_in_one_line_naming_the_missing_facts(tmp_path: Path) -> None:
    cfg = small_demo_config(tmp_path / "data", sessions=4, n=4, run_id="no-facts", tester_facts=[])
    config = write_config(cfg, tmp_path / "run.yaml")
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config", str(config)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr[-3000:]
    assert errors[0].startswith("error: run failed: extraction: produced 0 statements from 4 discovery sessions ("), errors
    assert "tester_facts" in errors[0] and "fix:" in errors[0], errors
    assert "Traceback" not in proc.stderr
    run = read_records(tmp_path / "data", "runs", run_id="no-facts")[-1]
    assert run.status == "failed" and "0 statements" in run.error
    assert read_records(tmp_path / "data", "tests", run_id="no-facts") == []

