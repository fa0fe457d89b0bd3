"""adat's uses of Prefect's private code hold for the Prefect they were written for; a new Prefect
fails here with the list of what to re-check (``flows/_prefect_internals.py``)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import prefect
import prefect.flow_engine
import pytest
from prefect.server.api.server import SubprocessASGIServer

from flows import _prefect_internals as internals


def test_prefect_is_the_version_the_internals_were_written_for() -> None:
    assert prefect.__version__ == internals.PINNED_PREFECT, (
        f"Prefect {prefect.__version__} is installed, flows/_prefect_internals.py was written for "
        f"{internals.PINNED_PREFECT}: re-check\n- " + "\n- ".join(internals.RECHECK)
        + "\nthen move PINNED_PREFECT")


def test_the_guarded_server_command_is_prefects_own_behind_the_guard() -> None:
    source = inspect.getsource(SubprocessASGIServer._run_uvicorn_command)
    command = internals.guarded_server_command(4200)
    uvicorn = command[command.index("--") + 1:]
    for arg in uvicorn[1:]:
        assert f'"{arg}"' in source or arg in ("4200", str(prefect.__module_path__.parent)), arg
    for name in ("PREFECT_UI_ENABLED", "PREFECT__SERVER_EPHEMERAL", "PREFECT__SERVER_FINAL"):
        assert name in source and name in internals.guarded_server_env()
    assert "capture_sigterm" in vars(prefect.flow_engine)


@pytest.mark.slow
def test_two_temporary_servers_on_one_fresh_prefect_home_both_start(tmp_path: Path) -> None:
    """Two `adat` commands at once on a new machine: both temporary servers migrate one Prefect
    database. Without the start lock, 2 trials in 2 failed here ("duplicate column name:
    state_timestamp", "database is locked"); with it both servers answer."""
    script = ("import sys\nfrom flows._prefect_internals import temporary_server\n"
              "print('ok', temporary_server().api_url)\n")
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home"),
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180"}
    env.pop("PREFECT_API_URL", None)
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    outputs = [proc.communicate(timeout=300)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [out[-1500:] for out in outputs]
    assert all(out.startswith("ok ") for out in outputs), [out[-1500:] for out in outputs]
    assert not any("duplicate column" in out or "database is locked" in out for out in outputs)
