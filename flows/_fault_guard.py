"""The first thing the fault workers' fork server does: die with the flow process, ignore Ctrl-C.

``flows._fault_worker`` calls :func:`guard` before it imports anything else. Its own imports
(Prefect, pyarrow, adat's stages) take seconds, more on a loaded 2-core machine; a server that
armed its parent-death signal only after them outlived a flow process killed in those seconds
(``kill -9``, or Ctrl-C to the group: the flow exits, the server goes on importing), and so did
the worker it then forked for the dead flow's pending request. Here the signal is armed and SIGINT
ignored within milliseconds of the server's start; a server whose flow process is gone already
ends at once.
"""

from __future__ import annotations

import os
import signal

from adat.child_guard import die_with_parent, gone

#: the flow process's pid, in the environment the fork server and the workers start with
PARENT_ENV = "ADAT_FAULT_POOL_PARENT"

#: in a process the flow process started for its pool (the fork server, a spawned worker): its own
#: pid. A worker the server forks inherits the value: the parent it dies with
#: (``flows._fault_runner._die_with_server``).
pool_process: int | None = None


def guard() -> None:
    """In a process the flow process started for its pool (the fork server; a spawned worker):
    die with the flow process and leave Ctrl-C to it; end now if it is gone already. Nothing
    elsewhere (the flow process itself, a test importing the worker module)."""
    global pool_process
    flow = os.environ.get(PARENT_ENV, "")
    if not flow.isdigit() or int(flow) == os.getpid():
        return
    if int(flow) == os.getppid():
        die_with_parent(int(flow))  # ends this process if the flow dies before the signal is armed
        pool_process = os.getpid()
        # Ctrl-C is the flow process's to handle (adat.interrupts). A worker the server forks
        # starts with the server's handlers of this moment, so it ignores SIGINT from its first
        # instruction, not only once its initializer runs.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return
    if gone(int(flow)):  # started by a flow process that died before this line: an orphan
        os._exit(1)
    # else the variable came down from a live process further up, not from our parent: not ours
