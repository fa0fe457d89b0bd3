"""The Prefect server adat starts in the background and every flow command reuses (``adat server``).

Without a server, every command that runs a flow starts Prefect's temporary in-process server
(≈ 10 s of a cached re-run). ``adat server start`` runs Prefect's own ``prefect server start`` as a
detached subprocess on 127.0.0.1 with its home — profile and SQLite database — and its log under
``<data_dir>/prefect/``; a state file there records the pid and URL, so ``status``, ``stop`` and every
later command of that data directory find it. A ``PREFECT_API_URL`` the user exported always wins:
adat then uses that server and never starts one. This module runs Prefect as a program and talks to
it over HTTP; it does not import Prefect.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from adat.config import (
    PREFECT_SERVER_DEFAULT_PORT,
    PREFECT_SERVER_HOST,
    PREFECT_SERVER_STARTUP_TIMEOUT_S,
    PREFECT_SERVER_STOP_TIMEOUT_S,
    prefect_server_env,
    user_prefect_api_url,
)
from adat.errors import UserError

STATE_FILE = "server.json"
LOG_FILE = "server.log"


@dataclass(frozen=True)
class ServerState:
    """A server adat started: its process, where it listens, where it logs."""

    pid: int
    port: int
    api_url: str
    log: str
    started_at: str

    @property
    def ui_url(self) -> str:
        return self.api_url.removesuffix("/api")


def server_dir(data_dir: Path) -> Path:
    """``<data_dir>/prefect``: the server's home (database, profile), its log and its state file."""
    return Path(data_dir) / "prefect"


def read_state(data_dir: Path) -> ServerState | None:
    path = server_dir(data_dir) / STATE_FILE
    try:
        return ServerState(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def is_healthy(api_url: str, timeout: float = 2.0) -> bool:
    """True when ``GET <api_url>/health`` answers 200 (Prefect's health route)."""
    try:
        return httpx.get(f"{api_url.rstrip('/')}/health", timeout=timeout).status_code == 200
    except (httpx.HTTPError, OSError, ValueError):
        return False


def running_server(data_dir: Path) -> ServerState | None:
    """The server adat started for ``data_dir`` if its process is alive and it answers."""
    state = read_state(data_dir)
    if state is None or not _is_server_process(state.pid):
        return None
    return state if is_healthy(state.api_url) else None


def start_server(data_dir: Path, port: int | None = None) -> tuple[ServerState, bool]:
    """Start a server for ``data_dir`` unless one runs; return it and whether it was started now."""
    user_url = user_prefect_api_url()
    if user_url:
        raise UserError(f"PREFECT_API_URL is set ({user_url}): adat uses that server and starts none",
                        field="PREFECT_API_URL", fix="unset PREFECT_API_URL to let adat start its own server")
    current = running_server(data_dir)
    if current is not None:
        return current, False
    _clear_state(data_dir)
    chosen = _choose_port(port)
    home = server_dir(data_dir)
    home.mkdir(parents=True, exist_ok=True)
    log_path = home / LOG_FILE
    cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", PREFECT_SERVER_HOST,
           "--port", str(chosen), "--analytics-off"]
    with log_path.open("ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=home,
                                env=prefect_server_env(home), start_new_session=True)
    state = ServerState(pid=proc.pid, port=chosen, api_url=f"http://{PREFECT_SERVER_HOST}:{chosen}/api",
                        log=str(log_path), started_at=datetime.now(UTC).isoformat(timespec="seconds"))
    (home / STATE_FILE).write_text(json.dumps(asdict(state), indent=1), encoding="utf-8")
    deadline = time.monotonic() + PREFECT_SERVER_STARTUP_TIMEOUT_S
    while not is_healthy(state.api_url, timeout=1.0):
        if proc.poll() is not None:
            _clear_state(data_dir)
            raise UserError(f"the Prefect server exited during startup (code {proc.returncode})",
                            file=str(log_path), fix="read the log's last lines; then adat server start again")
        if time.monotonic() > deadline:
            _terminate(proc.pid)
            _clear_state(data_dir)
            raise UserError(f"the Prefect server did not answer within {PREFECT_SERVER_STARTUP_TIMEOUT_S:.0f} s",
                            file=str(log_path), fix="read the log; on a busy machine try again")
        time.sleep(0.25)
    return state, True


def stop_server(data_dir: Path) -> ServerState | None:
    """Stop the server adat started for ``data_dir`` (its whole process group); None if none ran."""
    state = read_state(data_dir)
    if state is None:
        return None
    if _is_server_process(state.pid):
        _terminate(state.pid)
    _clear_state(data_dir)
    return state


def _terminate(pid: int) -> None:
    """SIGTERM the server's process group (it was started as a session leader), SIGKILL if it lingers."""
    for sig, wait_s in ((signal.SIGTERM, PREFECT_SERVER_STOP_TIMEOUT_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.1)


def _alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):  # our own child (tests start servers in-process) is reaped
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        pass
    return True


def _is_server_process(pid: int) -> bool:
    """Alive and still a Prefect server (a pid reused by another program is never signalled)."""
    if not _alive(pid):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.exists():
        return sys.platform != "linux"
    args = cmdline.read_bytes().split(b"\0")
    return b"prefect" in args and b"server" in args


def _choose_port(port: int | None) -> int:
    if port is not None:
        if not _port_free(port):
            raise UserError(f"port {port} is in use on {PREFECT_SERVER_HOST}", field="--port",
                            fix="pick another port, or leave out --port to let adat choose a free one")
        return port
    return PREFECT_SERVER_DEFAULT_PORT if _port_free(PREFECT_SERVER_DEFAULT_PORT) else free_port()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind((PREFECT_SERVER_HOST, 0))
        return int(sock.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((PREFECT_SERVER_HOST, port))
        except OSError:
            return False
    return True


def _clear_state(data_dir: Path) -> None:
    (server_dir(data_dir) / STATE_FILE).unlink(missing_ok=True)
