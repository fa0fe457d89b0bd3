"""`adat run-suite` against a real agent server on 127.0.0.1 that misbehaves (issue 30 items 1, 2).

* A header secret the agent echoes in its error bodies and replies is stored nowhere: no file
  under the data dir (Parquet read as bytes and as rows, Prefect's result files decoded), the
  report, the JUnit export or the command's stdout/stderr.
* Cut-off, closed, dripped, oversized and 503 replies at a rate: the command exits 0, every test
  has its execution, each fault is on its execution, transient ones are retried (and succeed, the
  faults being intermittent), and a dripped reply fails at ``timeout_s`` (measured, ± 1 s).

The suite is built once (reference agent, offline/heuristic stand-in); the served agent is the
same reference agent behind :mod:`tests.support.fault_agent`.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from adat.cli.flow_loader import load_flow
from adat.config import RunConfig
from adat.records import Execution
from adat.targets.target_factory import build_target
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config
from tests.support.fault_agent import cycle_plan, fault_agent

pytestmark = pytest.mark.slow

SUITE = "http-suite"
SECRET = "sk-agent-Qm7c41-never-store-me"
TIMEOUT_S = 3.0


@pytest.fixture(scope="module")
def suite(prefect_harness, tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    cfg = small_demo_config(tmp_path_factory.mktemp("http-suite") / "data", sessions=4, n=6, run_id=SUITE)
    load_flow("pipeline")(config=cfg)
    return cfg


def _run_suite(cfg: RunConfig, tmp_path: Path, run_id: str, target: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    from prefect.settings import PREFECT_API_URL

    data = cfg.model_dump(mode="json")
    data.update(run_id=run_id, target=target)
    config = tmp_path / f"{run_id}.yaml"
    config.write_text(yaml.safe_dump(data))
    env = {**os.environ, "ADAT_E2E_AGENT_KEY": SECRET, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    return _cli("run-suite", "--config", str(config), "--suite", SUITE, env=env)


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", *args],
                          capture_output=True, text=True, timeout=900, env=env)


def _executions(cfg: RunConfig, run_id: str) -> list[Execution]:
    return [e for e in read_records(cfg.data_path(), "executions", run_id=run_id) if isinstance(e, Execution)]


def _files_holding(root: Path, secret: str) -> list[str]:
    """Every file under ``root`` whose bytes, Parquet rows or base64 payloads hold ``secret``."""
    needle = secret.encode()
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        raw = path.read_bytes()
        texts = [raw]
        if path.suffix == ".parquet":
            texts.append(json.dumps(pq.read_table(path).to_pylist(), default=str).encode())
        try:  # Prefect's persisted results: JSON with a base64 (cloud)pickle payload
            doc = json.loads(raw)
            if isinstance(doc, dict) and isinstance(doc.get("result"), str):
                texts.append(base64.b64decode(doc["result"]))
        except (ValueError, UnicodeDecodeError):
            pass
        if any(needle in text for text in texts):
            found.append(str(path.relative_to(root)))
    return found


def test_a_header_secret_echoed_by_the_agent_is_stored_nowhere(suite: RunConfig, tmp_path: Path) -> None:
    agent = build_target(suite.target, suite)
    plan = cycle_plan(2, ("echo400", "echo500", "echo_reply"))
    with fault_agent(agent, plan) as server:
        target = {"type": "http", "base_url": server.url, "timeout_s": 20, "retry_backoff_s": 0.05,
                  "headers": {"Authorization": "Bearer ${ADAT_E2E_AGENT_KEY}"}}
        result = _run_suite(suite, tmp_path, "http-secret", target)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert {"echo400", "echo500", "echo_reply"} <= {fault for _n, _p, fault, _s in server.logged()}
    root = suite.data_path()
    report = tmp_path / "report.html"
    junit = tmp_path / "junit.xml"
    outputs = [result,
               _cli("report", "http-secret", "--data-dir", str(root), "--out", str(report)),
               _cli("export", "junit", "http-secret", "--data-dir", str(root), "--out", str(junit))]
    assert all(out.returncode == 0 for out in outputs), [out.stderr[-1000:] for out in outputs]
    assert "authorization" in junit.read_text().lower()  # the echoed errors are in the export ...
    for text in (report.read_text(), junit.read_text(), *(o.stdout + o.stderr for o in outputs)):
        assert SECRET not in text  # ... with the secret masked
    assert _files_holding(root, SECRET) == []
    executions = _executions(suite, "http-secret")
    masked = [e for e in executions if "***" in (e.error or "") + " ".join(t.text for t in e.turns)]
    assert masked, "the agent's echo reached no execution: the test would prove nothing"


def test_transport_faults_at_a_rate_are_recorded_per_execution(suite: RunConfig, tmp_path: Path) -> None:
    agent = build_target(suite.target, suite)
    kinds = ("truncate", "drip", "close", "oversize", "e503")
    with fault_agent(agent, cycle_plan(3, kinds), drip_s=0.5) as server:
        target = {"type": "http", "base_url": server.url, "timeout_s": TIMEOUT_S, "max_retries": 2,
                  "retry_backoff_s": 0.05, "max_reply_chars": 5000}
        result = _run_suite(suite, tmp_path, "http-faults", target)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert set(kinds) <= {fault for _n, _p, fault, _s in server.logged()}

    tests = read_records(suite.data_path(), "tests", run_id=SUITE)
    executions = _executions(suite, "http-faults")
    assert len(executions) == len(tests)
    errors = [e for e in executions if e.ended_by == "error"]
    timeouts = [e for e in errors if "(timeout)" in (e.error or "")]
    assert timeouts, [e.error for e in errors]
    for execution in timeouts:  # the failed message took timeout_s: from the last user turn to the end
        took = execution.duration_s - execution.turns[-1].ts
        assert TIMEOUT_S - 0.1 <= took <= TIMEOUT_S + 1.0, took
    assert all(e.error and e.error.startswith("POST http://127.0.0.1") for e in errors)
    retried = [e for e in executions if e.retries > 0 and e.ended_by != "error"]
    assert retried, "no intermittent transient fault was retried to success"
    cut = [t.text for e in executions for t in e.turns if "[adat: reply cut at 5000 of" in t.text]
    assert cut and all(len(text) < 5100 for text in cut)
    faults = [fault for _n, _p, fault, _s in server.logged() if fault != "ok"]
    print(f"\n{len(executions)} executions, {len(errors)} errors ({len(timeouts)} timeouts, took "
          f"{[round(e.duration_s - e.turns[-1].ts, 2) for e in timeouts]} s), {len(retried)} retried to success "
          f"({sum(e.retries for e in executions)} retries), {len(cut)} replies cut; faults injected: "
          f"{ {k: faults.count(k) for k in kinds} } of {len(server.log)} requests")
