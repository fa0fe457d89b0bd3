"""The process pool fault regressions fan out on, started early and ended fast.

Prefect's :class:`ProcessPoolTaskRunner` spawns its workers at the first submitted task, and a
spawned worker then spends seconds importing Prefect and adat before it runs anything; at the
end the flow waits while each worker tears its interpreter down module by module. Here:

* :meth:`FaultRunner.prestart` spawns the workers as soon as a flow knows it has faults to run,
  so their start-up overlaps the flow's own serial part (suite fingerprint, audit lookup, the
  original agent's replays);
* :func:`warm_worker` (each worker's initializer) imports what a regression runs and parses the
  rule table once per process, and lets the worker end right after its exit handlers (Prefect's
  log and event drains included) instead of the interpreter's teardown.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from typing import Any

from prefect.context import FlowRunContext
from prefect.task_runners import ProcessPoolTaskRunner


def warm_worker() -> None:
    """Initializer of a fault worker: the imports and parses every regression would pay first."""
    import tasks.evaluation_tasks  # noqa: F401  (the task module a regression is unpickled into)
    from adat.agents.reference.rules import RuleBook
    from adat.evaluation import labels, replay  # noqa: F401
    from adat.pipeline import steps  # noqa: F401
    from adat.stages import execution, judging  # noqa: F401

    RuleBook.load()
    with contextlib.suppress(ImportError):  # a private helper of Prefect's: warming is optional
        from prefect._internal.plugins.collections import load_prefect_collections

        load_prefect_collections()  # a task's first result-storage block lookup imports every collection
    atexit.register(_end_worker)  # registered first, so it runs after every later handler


def _end_worker() -> None:
    # A worker's exit code is 0 whenever it gets here (the pool reaped it normally); its results
    # went back over the pool's pipe and its log/event queue was flushed before exit handlers run.
    os._exit(0)


def _started() -> int:
    return os.getpid()


class FaultRunner(ProcessPoolTaskRunner):
    """:class:`ProcessPoolTaskRunner` with warm workers (see the module docstring)."""

    def __init__(self, max_workers: int | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("initializer", warm_worker)
        super().__init__(max_workers=max_workers, **kwargs)

    def prestart(self) -> None:
        """Spawn every worker now (they warm up while the flow goes on); a no-op when not started."""
        if self._executor is not None:
            for _ in range(self._max_workers):
                self._executor.submit(_started)


def prestart_workers() -> None:
    """Start the current flow's fault workers, when its task runner is a :class:`FaultRunner`."""
    context = FlowRunContext.get()
    runner = context.task_runner if context else None
    if isinstance(runner, FaultRunner):
        runner.prestart()
