"""Ctrl-C and SIGTERM stop an ``adat`` command at once: one line, the run marked, exit 130 / 143.

A terminal's Ctrl-C (and ``kill -TERM -PGID``, a CI runner's cancel) signals the whole process
group: the command and the children it started, among them Prefect's temporary API server. Left
to Python and Prefect, the flow engine would then spend minutes reporting the interruption to
that server, which the same signal just stopped (hundreds of lines of connection errors, the
run left ``running``). So the command's own process handles both signals itself:

1. every run this process writes (it holds the run's claim, :mod:`adat.pipeline.run_claims`)
   that is still ``running`` becomes ``failed`` with the error ``interrupted`` — a Parquet row,
   no API call;
2. one line on stderr: ``interrupted (SIGINT): run <id> marked failed: interrupted``;
3. the process ends with ``os._exit(128 + signal)`` (130 for SIGINT, 143 for SIGTERM, the
   shell's convention), without Prefect's teardown. What the stages committed is on disk, as
   after a crash (a re-run resumes it); the children die with the process
   (:mod:`adat.child_guard`).

Only the ``adat`` command process installs the handlers (never a test runner that imports the
CLI); a second signal while the first is handled is ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from types import FrameType

INTERRUPTED = "interrupted"
SIGNALS = (signal.SIGINT, signal.SIGTERM)
TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def install() -> None:
    """Handle SIGINT and SIGTERM in this process as the module says (from the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in SIGNALS:
        signal.signal(sig, _interrupted)
    if TRACKER_QUIET not in sys.warnoptions:
        # Ending by os._exit leaves the process pools' semaphores to multiprocessing's resource
        # tracker, which frees them, as it should, and would print two lines of warning after the
        # command's one. The tracker starts with this process's -W options, these included.
        sys.warnoptions.append(TRACKER_QUIET)


def handled(sig: int) -> bool:
    """Whether this process handles ``sig`` as the module says (:func:`install` ran)."""
    return signal.getsignal(sig) is _interrupted


def _interrupted(signum: int, _frame: FrameType | None) -> None:
    for sig in SIGNALS:  # the first signal wins; a second Ctrl-C must not cut the run's row in half
        signal.signal(sig, signal.SIG_IGN)
    name = signal.Signals(signum).name
    try:
        marked = mark_interrupted()
        what = "".join(f"; run {run_id} marked failed: {INTERRUPTED}" for run_id in marked)
    except Exception as exc:  # the line is still printed and the process still ends
        what = f"; the run could not be marked ({type(exc).__name__}: {str(exc)[:200]})"
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"interrupted ({name}){what}\n")
        sys.stderr.flush()
    os._exit(128 + signum)


def mark_interrupted() -> list[str]:
    """Mark every run this process holds the claim of and that is still ``running`` as
    ``failed: interrupted``; return their ids."""
    from adat.pipeline.context import end_run_row
    from adat.pipeline.run_claims import held_runs

    return [run_id for root, run_id in held_runs() if end_run_row(root, run_id, "failed", INTERRUPTED)]
