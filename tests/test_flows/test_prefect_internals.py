"""adat's uses of Prefect's private code hold for the Prefect they were written for; a new Prefect
fails here with the list of what to re-check (``flows/_prefect_internals.py``)."""

from __future__ import annotations

import inspect

import prefect
import prefect.flow_engine
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
