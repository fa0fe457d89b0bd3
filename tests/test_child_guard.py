"""A child started through :func:`adat.child_guard.guarded_command` dies with its parent, even after kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adat.child_guard import gone

PARENT = """
import subprocess, sys, time
from adat.child_guard import guarded_command
child = subprocess.Popen(guarded_command(["/bin/sleep", "60"]))
print(child.pid, flush=True)
time.sleep(60)
"""


def _command_of(pid: int) -> bytes:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().split(b"\0")[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_guarded_child_dies_within_a_second_of_its_parents_kill_9() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    deadline = time.monotonic() + 10  # a loaded machine can take seconds to start the guard's Python
    while _command_of(child) != b"/bin/sleep" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not gone(child)
    assert _command_of(child) == b"/bin/sleep", "the guard did not exec the command"
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(child), "the guarded child outlived its parent"


def test_a_guard_whose_parent_is_already_gone_ends_at_once() -> None:
    done = subprocess.run([sys.executable, "-m", "adat.child_guard", "1", "--", "/bin/sleep", "60"], timeout=30)
    assert done.returncode == (1 if sys.platform.startswith("linux") else 0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="zombies are read from /proc")
def test_gone_is_true_for_a_reaped_pid_and_for_a_zombie_false_for_a_live_process() -> None:
    child = subprocess.Popen(["/bin/sleep", "60"])
    assert not gone(child.pid) and not gone(os.getpid())
    child.kill()
    deadline = time.monotonic() + 5  # killed, not reaped: a zombie that os.kill(pid, 0) still finds
    while Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
        assert time.monotonic() < deadline, "the killed child never became a zombie"
        time.sleep(0.01)
    os.kill(child.pid, 0)
    assert gone(child.pid)
    child.wait()
    assert gone(child.pid)
