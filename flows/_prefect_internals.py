"""Where adat reaches into Prefect's private code: each use here, pinned to the Prefect it was written for.

``tests/test_flows/test_prefect_internals.py`` fails when ``prefect.__version__`` is not
:data:`PINNED_PREFECT`, and names :data:`RECHECK`: what to read again in the new Prefect before
moving the pin. Anything else in ``flows/`` uses Prefect's public API (the fault runner's own
overrides, ``flows/_fault_runner.py``, are listed in :data:`RECHECK` too; what they save is
measured by ``benchmarks/prefect_fast_paths.py``, which fails when one no longer earns its keep).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import prefect
from prefect.settings import get_current_settings

from adat import interrupts
from adat.child_guard import guarded_command

PINNED_PREFECT = "3.9.1"

#: what to re-check in a new Prefect, one line per use of its private code
RECHECK = (
    "prefect.server.api.server.SubprocessASGIServer._run_uvicorn_command: the command and environment "
    "of the temporary API server (copied in guarded_server_command)",
    "prefect.flow_engine.capture_sigterm: still the name the flow engine calls around a flow run "
    "(replaced by without_sigterm_bridge)",
    "prefect.task_runners.ProcessPoolTaskRunner: _executor, _max_workers, _initializer, "
    "_resolve_futures_and_submit and its settings_context (flows/_fault_runner.py)",
    "prefect.context.SettingsContext.serialize and SyncClientContext (flows/_fault_runner.py)",
    "prefect._internal.plugins.collections.load_prefect_collections (flows/_fault_worker.py)",
)


def temporary_server() -> Any:
    """Prefect's temporary API server of this process (a singleton), started so that it dies with
    the process even after ``kill -9`` (:mod:`adat.child_guard`). Call it from the main thread."""
    from prefect.server.api.server import SubprocessASGIServer  # the server's modules: only when one starts

    server = SubprocessASGIServer()
    if not server.running:
        server._run_uvicorn_command = lambda: _start_guarded(server)  # type: ignore[method-assign]
    with _one_start_per_home():
        server.start()  # waits until /health answers; a no-op when it runs; stopped at exit by Prefect
    return server


@contextlib.contextmanager
def _one_start_per_home() -> Iterator[None]:
    """Two temporary servers starting at once on one Prefect home both migrate its database, and
    one fails ("duplicate column name: has_data", Prefect 3.9.1: two ``adat run`` at once on a
    fresh machine). The first start holds this lock until its server answers; the kernel drops
    it if the process dies."""
    import fcntl

    home = Path(get_current_settings().home)
    home.mkdir(parents=True, exist_ok=True)
    with (home / ".adat-server-start.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _start_guarded(server: Any) -> Any:
    import subprocess

    return subprocess.Popen(args=guarded_server_command(server.port), env=guarded_server_env())


def guarded_server_command(port: int | None) -> list[str]:
    """Prefect 3.9.1's ``_run_uvicorn_command`` arguments, behind the parent-death guard."""
    return guarded_command([sys.executable, "-m", "uvicorn", "--app-dir", str(prefect.__module_path__.parent),
                            "--factory", "prefect.server.api.server:create_app", "--host", "127.0.0.1",
                            "--port", str(port), "--log-level", "error", "--lifespan", "on"])


def guarded_server_env() -> dict[str, str]:
    """Prefect 3.9.1's environment of the temporary server (no UI, marked ephemeral)."""
    return {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1",
            **get_current_settings().to_environment_variables(exclude_unset=True)}


@contextlib.contextmanager
def without_sigterm_bridge() -> Iterator[None]:
    """Within: the flow engine leaves SIGTERM to the process's own handler (:mod:`adat.interrupts`)
    instead of installing Prefect's bridge, which turns it into an exception whose crash report
    goes to an API server the same signal to the process group has stopped."""
    if not interrupts.handled(signal.SIGTERM):  # a test runner, a library caller: Prefect's default
        yield
        return
    import prefect.flow_engine

    original = prefect.flow_engine.capture_sigterm
    prefect.flow_engine.capture_sigterm = contextlib.nullcontext  # type: ignore[assignment]
    try:
        yield
    finally:
        prefect.flow_engine.capture_sigterm = original
