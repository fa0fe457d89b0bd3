"""`adat server start|status|stop`: one real Prefect server on 127.0.0.1 that a flow command reuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from adat.prefect_server import read_state, stop_server
from tests.support.demo_config import small_demo_config, write_config
from tests.support.prefect_server import free_port

ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(extra)
    return env


def adat(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ADAT, *args], capture_output=True, text=True, env=env or _env(), timeout=timeout)


def _small_config(path: Path, data: Path) -> Path:
    cfg = small_demo_config(data, sessions=2, n=2, run_id="srv-small")
    return write_config(cfg.model_copy(update={"selector": cfg.selector.model_copy(update={"max_attempts_cap": 4})}),
                        path)


def _flow_runs(api_url: str) -> list[dict]:
    req = urllib.request.Request(f"{api_url}/flow_runs/filter", data=json.dumps({"limit": 50}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return list(json.load(resp))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


@pytest.mark.slow
def test_a_flow_command_runs_on_the_started_server_and_stop_cleans_up(tmp_path: Path) -> None:
    data = tmp_path / "data"
    port = free_port()
    try:
        started = adat("server", "start", "--port", str(port), "--data-dir", str(data))
        assert started.returncode == 0, started.stderr
        assert f"started at http://127.0.0.1:{port}" in started.stdout
        state = read_state(data)
        assert state is not None and state.port == port and _alive(state.pid)
        assert (data / "prefect" / "prefect.db").is_file()  # the server's database under the data dir

        status = adat("server", "status", "--data-dir", str(data))
        assert status.returncode == 0 and "healthy" in status.stdout and str(state.pid) in status.stdout
        again = adat("server", "start", "--data-dir", str(data))
        assert again.returncode == 0 and "already running" in again.stdout and str(state.pid) in again.stdout

        run = adat("run", "--config", str(_small_config(tmp_path / "small.yaml", data)))
        assert run.returncode == 0, run.stderr[-2000:]
        runs = [r for r in _flow_runs(state.api_url)
                if isinstance(r["parameters"].get("config"), dict) and r["parameters"]["config"]["run_id"] == "srv-small"]
        assert runs and all(r["state_type"] == "COMPLETED" for r in runs)  # the run went to this server

        stopped = adat("server", "stop", "--data-dir", str(data))
        assert stopped.returncode == 0 and "stopped" in stopped.stdout
        assert not _alive(state.pid) and read_state(data) is None
        after = adat("server", "status", "--data-dir", str(data))
        assert after.returncode == 1 and "stopped" in after.stdout
    finally:
        stop_server(data)


def test_a_user_server_wins_and_a_taken_port_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    user = _env(PREFECT_API_URL=f"http://127.0.0.1:{free_port()}/api")
    start = adat("server", "start", "--data-dir", str(data), env=user)
    assert start.returncode == 2 and start.stdout == ""
    assert start.stderr.count("\n") == 1 and "PREFECT_API_URL" in start.stderr and "unset" in start.stderr
    status = adat("server", "status", "--data-dir", str(data), env=user)
    assert status.returncode == 1 and "set by you" in status.stdout and "NOT answering" in status.stdout
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = adat("server", "start", "--port", str(busy.getsockname()[1]), "--data-dir", str(data))
    assert taken.returncode == 2 and taken.stderr.count("\n") == 1 and "--port" in taken.stderr
    assert read_state(data) is None
