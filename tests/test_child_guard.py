"""A child started through :func:`adat.child_guard.guarded_command` dies with its parent, even after kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

PARENT = """
import subprocess, sys, time
from adat.child_guard import guarded_command
child = subprocess.Popen(guarded_command(["/bin/sleep", "60"]))
print(child.pid, flush=True)
time.sleep(60)
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].startswith("Z")  # a zombie waits for init to reap it
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_guarded_child_dies_within_a_second_of_its_parents_kill_9() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(0.5)  # the guard has exec'd sleep by now
    assert not _gone(child)
    with open(f"/proc/{child}/cmdline", "rb") as f:
        assert f.read().split(b"\0")[0] == b"/bin/sleep", "the guard did not exec the command"
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child), "the guarded child outlived its parent"


def test_a_guard_whose_parent_is_already_gone_ends_at_once() -> None:
    done = subprocess.run([sys.executable, "-m", "adat.child_guard", "1", "--", "/bin/sleep", "60"], timeout=30)
    assert done.returncode == (1 if sys.platform.startswith("linux") else 0)
