"""No process adat starts outlives the command that started it, even after ``kill -9`` of that command.

The mechanism is Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``): a child asks the
kernel to send it SIGKILL the moment its parent dies, however the parent dies. It is set in
each child adat starts, not by the parent:

* the temporary Prefect API server (``uvicorn``) is started through :func:`guarded_command`:
  a few lines of Python (``python -m adat.child_guard PARENT_PID -- CMD…``) that set the signal
  and then ``exec`` the server, which keeps it (it survives ``execve``);
* the fault workers' fork server and each worker it forks call :func:`die_with_parent` first
  (``flows/_fault_guard.py``, before the server's slow imports; ``flows/_fault_runner.py``): the server dies with the command,
  the workers with the server. The standard library's resource tracker ends on its own once
  every process holding its pipe is gone.

A child that arms the signal after its parent died is an orphan that nobody will signal: it
checks its parent itself, right after arming, and ends. Which process to check is the one that
forked it (:func:`die_with_parent`'s ``expected_parent``), never a process further up: the fork
server dies the moment the flow process's main thread does, while the flow's pid still names a
dying process, then a zombie until it is reaped (:func:`gone`). A worker that checked the flow
instead found it "alive" in that window and was left running (a CI failure of ``kill -9``).

Two caveats of the mechanism, and how they are met: the "parent" is the *thread* that forked
the child, so every guarded child is started from the command's main thread (the flow runs
there); and a parent that dies between the fork and the ``prctl`` call is missed, so the child
then checks that its parent is still the expected pid and exits if not. Elsewhere than Linux
the guard does nothing (docs/failures.md).
"""

from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(expected_parent: int | None = None, sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies; end now (``os._exit(1)``)
    when the parent is already gone (not ``expected_parent`` any more). False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        return False
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)  # the parent died before the signal was armed: nobody is left to wait for us
    return True


def gone(pid: int) -> bool:
    """True when ``pid`` names no running process: none at all, or one that has exited and waits to
    be reaped (a zombie). A process killed with ``kill -9`` stays a zombie until its parent reaps
    it, and keeps its pid meanwhile, so ``os.kill(pid, 0)`` alone still finds it; its children were
    handed on at its exit already."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # a live process of another user
        return False
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            state = stat.read().rpartition(")")[2].split()[0]  # the field after the command name
    except (OSError, IndexError):  # gone between the two looks
        return True
    return state in ("Z", "X")


def guarded_command(cmd: list[str]) -> list[str]:
    """``cmd`` run so that it dies with this process: through ``python -m adat.child_guard``
    (unchanged where the platform has no parent-death signal)."""
    if not sys.platform.startswith("linux"):
        return list(cmd)
    return [sys.executable, "-m", "adat.child_guard", str(os.getpid()), "--", *cmd]


def main(argv: list[str]) -> None:
    """``python -m adat.child_guard PARENT_PID -- CMD…``: arm the parent-death signal, exec CMD."""
    parent, sep, *cmd = argv
    if sep != "--" or not cmd:
        raise SystemExit("usage: python -m adat.child_guard PARENT_PID -- CMD...")
    die_with_parent(int(parent))
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
