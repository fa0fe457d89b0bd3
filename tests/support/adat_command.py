"""An ``adat`` command in its own session, as a terminal or a CI runner starts it, and the processes
it left (tests/test_flows/test_interrupts.py, benchmarks/kill_during_worker_start.py)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

#: a terminal progress line (``executions (plain, original): 3/10``): output the command made before the signal
PROGRESS = re.compile(r"^[\w ,()-]+: \d+/\d+$")


def command_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}  # no server: the default
    return {**env, "PREFECT_HOME": str(tmp / "prefect-home"), "ADAT_CACHE_DIR": str(tmp / "cache")}


class Command:
    """An ``adat`` command in its own session (process group), its stderr read as it comes."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", "from adat.cli.main import app; app()", *args], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True)
        self.lines: list[str] = []
        threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stderr.readline, "")),  # type: ignore[union-attr]
                         daemon=True).start()

    def wait_for(self, ready: Callable[[], bool], what: str, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None and not ready():
            time.sleep(0.02)
        assert self.proc.poll() is None, f"the command ended before {what}: " + "".join(self.lines)[-3000:]
        assert ready(), f"never reached {what}: " + "".join(self.lines)[-3000:]

    def printed(self, text: str) -> bool:
        return any(text in line for line in list(self.lines))

    def session(self) -> list[psutil.Process]:
        """Every live process of the command's session: itself and whatever it started."""
        return [p for p in psutil.process_iter() if _alive(p) and _sid(p) == self.proc.pid]

    def command_lines(self) -> dict[int, str]:
        """pid → command line of each live process of the session (one that ends meanwhile is left out)."""
        seen = {p.pid: _parent_and_args(p) for p in self.session()}
        return {pid: info[1] for pid, info in seen.items() if info is not None}

    def signal_group(self, sig: int) -> tuple[int, float]:
        """Send ``sig`` to the group; (exit code, seconds to exit). :meth:`said_since` the lines it printed."""
        self.before = len(self.lines)
        sent = time.monotonic()
        os.killpg(self.proc.pid, sig)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            pytest.fail(f"still running 60 s after {signal.Signals(sig).name}")
        return code, time.monotonic() - sent

    def said_since(self) -> list[str]:
        """The stderr lines since the signal, but for progress lines drawn before it was handled."""
        return [line for line in list(self.lines)[self.before:] if not PROGRESS.match(line.strip())]


def _sid(p: psutil.Process) -> int | None:
    try:
        return os.getsid(p.pid)
    except OSError:
        return None


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _parent_and_args(p: psutil.Process) -> tuple[int, str] | None:
    try:
        return p.ppid(), " ".join(p.cmdline())
    except psutil.Error:  # ended since the look at the session
        return None


def fork_servers(cmd: Command) -> list[int]:
    """The pids of the command's fork servers (children of its own process)."""
    seen = {p.pid: _parent_and_args(p) for p in cmd.session()}
    return [pid for pid, info in seen.items()
            if info is not None and info[0] == cmd.proc.pid and "multiprocessing.forkserver" in info[1]]


def workers_run(cmd: Command) -> bool:
    """The fault workers run: processes the fork server forked (a count of the session's processes
    could include a short-lived helper while the server still imports)."""
    servers = set(fork_servers(cmd))
    return any((info := _parent_and_args(p)) is not None and info[0] in servers for p in cmd.session())
