"""Nothing is lost or duplicated on a crash (issue 8, Done-when 2).

`adat run` is killed (SIGKILL, whole process group) at three points — during discovery, during
the plain executions and in the middle of the transformation phase — then started again with
the same run id. After each re-run every `sql/checks` query is empty, no test, execution or
verdict id occurs twice in the raw tables, the stages that had finished make no LLM call, and
the transformation keeps every attempt it had committed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from adat.config import adat_home, demo_config_path
from adat.warehouse import build_catalog, read_records, run_query

pytestmark = pytest.mark.slow

RUN = "crash-1"
#: prompts of the stages before the plain executions (the judge also runs later, so it is not here)
BEFORE_EXECUTION = ("planner", "driver", "extractor", "grounder", "generate_plain")


def _start(config: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", "from adat.cli.main import app; app()", "run",
                             "--config", str(config)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _count(path: Path, pattern: str = "*") -> int:
    return sum(1 for p in path.rglob(pattern) if p.is_file()) if path.is_dir() else 0


class Setup:
    def __init__(self, tmp_path: Path, prefect_api_url: str) -> None:
        cfg = yaml.safe_load(demo_config_path().read_text())
        cfg.update(run_id=RUN, data_dir=str(tmp_path / "data"))
        cfg["discovery"]["sessions"] = 10
        cfg["generation"]["n"] = 30
        self.config = tmp_path / "run.yaml"
        self.config.write_text(yaml.safe_dump(cfg))
        # the test session's Prefect server, as with `adat server`: what is killed and resumed here is
        # the run's data dir, and a temporary server per command costs ≈ 8 s of each of the six
        # (tests/test_flows/test_interrupts.py kills commands that run their own temporary server)
        self.env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "ADAT_CACHE_DIR": str(tmp_path / "cache"),
                    "PREFECT_API_URL": prefect_api_url}
        self.root = tmp_path / "data"
        self.results = self.root / "prefect" / "results"

    def partition(self, table: str) -> Path:
        return self.root / "runs" / table / f"run_id={RUN}"

    def kill_when(self, ready: Callable[[list[str]], bool], what: str) -> None:
        """Start `adat run`, kill its process group once ``ready(stderr lines so far)`` holds."""
        proc = _start(self.config, self.env)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")),  # type: ignore[union-attr]
                                  daemon=True)
        reader.start()
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline and proc.poll() is None and not ready(list(lines)):
            time.sleep(0.02)
        assert proc.poll() is None, f"the run ended before {what}: " + "".join(lines)[-2000:]
        assert ready(list(lines)), f"never reached {what}"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def rerun(self) -> None:
        again = _start(self.config, self.env)
        out, err = again.communicate(timeout=900)
        assert again.returncode == 0, out[-2000:] + err[-4000:]

    def calls(self) -> Counter[str]:
        return Counter(c.prompt_id for c in read_records(self.root, "llm_calls", run_id=RUN))

    def check_consistent(self) -> None:
        root = self.root
        assert read_records(root, "runs", run_id=RUN)[-1].status == "completed"
        for table, key in (("tests", "test_id"), ("executions", "execution_id"), ("verdicts", "execution_id"),
                           ("attempts", "attempt_no"), ("statements", "statement_id"), ("traces", "trace_id")):
            ids = Counter(getattr(r, key) for r in read_records(root, table, run_id=RUN))
            assert ids, f"{table} is empty"
            twice = [k for k, n in ids.items() if n > 1]
            assert not twice, f"{table}: {key} occurs more than once: {twice[:5]}"
        sql = adat_home() / "sql"
        db = build_catalog(root, sql)
        for check in sorted((sql / "checks").glob("*.sql")):
            rows = run_query(db, check, {"run_id": RUN}).to_pylist()
            assert rows == [], f"sql/checks/{check.name}: {rows[:3]}"


def test_killed_during_discovery(tmp_path: Path, prefect_api_url: str) -> None:
    s = Setup(tmp_path, prefect_api_url)
    # the terminal progress on stderr: a few sessions done, not all
    s.kill_when(lambda lines: any("discovery sessions: 3/" in line for line in lines), "discovery")
    assert not s.partition("traces").exists()
    s.rerun()
    s.check_consistent()


def test_killed_during_plain_executions(tmp_path: Path, prefect_api_url: str) -> None:
    s = Setup(tmp_path, prefect_api_url)

    def executing(lines: list[str]) -> bool:
        # some plain tests executed; plain generation's result is persisted (4 cached stages done)
        return _count(s.results) >= 4 and any(int(m.group(1)) >= 4 for line in lines  # progress skips counts
                                              if (m := re.search(r"executions \(plain, original\): (\d+)/", line)))

    s.kill_when(executing, "the plain executions")
    assert not s.partition("executions").exists()
    before = s.calls()
    assert all(before[p] > 0 for p in BEFORE_EXECUTION), before
    s.rerun()
    after = s.calls()
    assert {p: after[p] for p in BEFORE_EXECUTION} == {p: before[p] for p in BEFORE_EXECUTION}, \
        "a stage that had finished before the kill ran again"
    s.check_consistent()


def test_killed_during_transformation_resumes_without_losing_attempts(tmp_path: Path, prefect_api_url: str) -> None:
    s = Setup(tmp_path, prefect_api_url)
    parts = s.partition("attempts")
    s.kill_when(lambda _lines: parts.is_dir() and len(list(parts.glob("*.parquet"))) >= 8, "the transformation")
    before = {(a.attempt_no, a.statement_id, a.instruction_id, a.applicable)
              for a in read_records(s.root, "attempts", run_id=RUN)}
    assert len(before) >= 8
    calls_before = s.calls()
    s.rerun()
    calls_after = s.calls()
    assert {p: calls_after[p] for p in BEFORE_EXECUTION} == {p: calls_before[p] for p in BEFORE_EXECUTION}
    attempts = read_records(s.root, "attempts", run_id=RUN)
    after = {(a.attempt_no, a.statement_id, a.instruction_id, a.applicable) for a in attempts}
    assert before <= after, "attempts persisted before the crash were lost or changed"
    numbers = sorted(a.attempt_no for a in attempts)
    assert numbers == list(range(1, len(numbers) + 1)), "attempt numbers are not contiguous"
    assert len(after) > len(before)
    tests = {t.test_id for t in read_records(s.root, "tests", run_id=RUN)}
    assert all(a.test_id in tests for a in attempts if a.test_id)
    # resumed, not redone: one transformation call per attempt (+ at most the one in flight)
    assert len(attempts) <= calls_after["generate_transformed"] <= len(attempts) + 1
    s.check_consistent()
