"""The process pool fault regressions fan out on: forked from a warm server, started early.

Prefect's :class:`ProcessPoolTaskRunner` *spawns* its workers at the first submitted task, and
a spawned worker then spends seconds importing Prefect and adat before it runs anything — on
2 cores, while the flow process does its own serial part. Here:

* the workers are forked from the standard library's **fork server**
  (``multiprocessing`` ``forkserver``), started once per process with
  :mod:`flows._fault_worker` preloaded: one interpreter imports what a regression runs, and every
  pool of every later flow in the process (``adat demo --evaluate``: the evaluate flow, then
  each ``regress``) forks warm workers from it in milliseconds. The server is single-threaded, so
  forking it is safe where forking the flow process (Prefect's threads) is not. Each worker
  takes the flow process's environment as it is when the pool opens, not the server's;
* a forked worker enters the flow's Prefect settings and one API client once, for its life, and
  each task is sent without its settings when they are those (:func:`warm_worker`); Prefect's
  engine would otherwise hydrate the settings and build two API clients (each with a TLS
  context) for every task, between every two regressions of a worker. In the flow process
  the runner's settings are serialized once, not once per submitted task
  (``benchmarks/evaluation_fanout.py`` measures the phase);
* :meth:`FaultRunner.prestart` starts the server and forks the workers as soon as a flow knows
  it has faults, so whatever start-up remains overlaps the flow's own serial part; the modules
  of the LLM providers the run config uses are preloaded too;
* each forked worker dies with the fork server, and the server with the flow process, even after
  ``kill -9`` of the command (parent-death signal, :mod:`adat.child_guard`); a worker ignores
  Ctrl-C, which the command handles (:mod:`adat.interrupts`);
* where no fork server exists (Windows), the workers are spawned as Prefect does and
  :func:`warm_worker` imports the same module in each, and lets a spawned worker end right after
  its exit handlers instead of the interpreter's teardown.

The runner overrides private parts of Prefect's ``ProcessPoolTaskRunner``; they are pinned to the
Prefect version they were written for in ``flows/_prefect_internals.py`` (``RECHECK``), with
the benchmark figures that keep them in ``benchmarks/README.md`` (evaluation fan-out).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import multiprocessing
import os
import signal
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any
from uuid import UUID

import httpx
from prefect.client.schemas.objects import RunInput
from prefect.context import FlowRunContext, SettingsContext, SyncClientContext
from prefect.futures import PrefectFuture
from prefect.task_runners import ProcessPoolTaskRunner
from pydantic import PrivateAttr

from adat.child_guard import die_with_parent
from adat.config import RunConfig
from adat.llm.providers.provider_registry import provider_modules
from flows import _fault_guard
from flows._cli import one_api
from flows._fault_guard import PARENT_ENV

WARM_MODULE = "flows._fault_worker"
_in_worker = False  # set in a fault worker: the runner its tasks' context re-enters stays unstarted
_worker_contexts = contextlib.ExitStack()  # a fault worker's settings and API client: open for its life


def fork_server(modules: list[str]) -> BaseContext | None:
    """The fork-server start context, to preload ``modules``; None where the platform has none.
    The server itself starts with the first worker (then serves the whole process, so a later
    pool's extra modules are imported by its workers instead)."""
    os.environ[PARENT_ENV] = str(os.getpid())  # the server (or a spawned worker) dies with this process
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(modules)  # read only when the server starts
    return context


def warm_worker(modules: tuple[str, ...] = (WARM_MODULE,), environ: dict[str, str] | None = None,
                settings: dict[str, Any] | None = None) -> None:
    """Initializer of a fault worker: the flow process's environment, and ``modules`` imported.

    With ``settings`` (the flow's serialized Prefect settings context), the worker enters that
    settings context and one API client for its whole life: the tasks it runs are then sent
    without their settings (:meth:`FaultRunner._resolve_futures_and_submit`), and Prefect's task
    engine finds this client instead of building two per task."""
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the command's to handle (adat.interrupts)
    if environ is not None:  # a forked worker has the fork server's environment, from its start
        os.environ.clear()
        os.environ.update(environ)
        _die_with_server()
    if settings is not None:
        _worker_contexts.enter_context(SettingsContext(**settings))
        try:
            _worker_contexts.enter_context(SyncClientContext())
        except RuntimeError as error:  # Prefect's "Failed to reach API at …"
            if not isinstance(error.__cause__, httpx.TransportError):
                raise
            # The API went away while this worker started: the command is being interrupted and
            # its server is stopping. A task this worker still gets makes its own client and
            # reports its own error; an initializer that raised would print a traceback instead.
    for name in modules:  # nothing to do for what the fork server preloaded
        importlib.import_module(name)
    if environ is None:  # spawned
        atexit.register(_end_worker)  # registered first, so it runs after every later handler


def _die_with_server() -> None:
    """A forked worker dies with its fork server, which dies with the flow process
    (:mod:`adat.child_guard`); it ends now if the server is gone already. The server, not the flow
    process: the server dies as the flow's main thread does, while the flow's pid still names a
    dying process or a zombie, and a worker forked just before then must not take it as alive."""
    die_with_parent(_fault_guard.pool_process)  # None: a server no flow process guarded


def _end_worker() -> None:
    # A spawned worker's exit code is 0 whenever it gets here (the pool reaped it normally); its
    # results went back over the pool's pipe and its log/event queue was flushed before exit
    # handlers run. (A forked worker never runs exit handlers: it leaves by os._exit already.)
    os._exit(0)


def _started() -> int:
    return os.getpid()


class _SerializedOnce(SettingsContext):
    """The same settings, serialized once: Prefect's process pool serializes the current settings
    for every task it submits (a walk over every setting, in the flow process, while the workers
    run)."""

    _serialized: dict[str, Any] | None = PrivateAttr(None)

    def serialize(self, include_secrets: bool = True) -> dict[str, Any]:
        if not include_secrets:
            return super().serialize(include_secrets=False)
        if self._serialized is None:
            self._serialized = super().serialize()
        return self._serialized


class FaultRunner(ProcessPoolTaskRunner):
    """:class:`ProcessPoolTaskRunner` with warm, forked workers (see the module docstring)."""

    def __init__(self, max_workers: int | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("initializer", warm_worker)
        super().__init__(max_workers=max_workers, **kwargs)
        self._worker_settings: dict[str, Any] | None = None

    def __enter__(self) -> FaultRunner:
        self._api = contextlib.ExitStack()
        if _in_worker:  # a task's context re-entering its flow's runner: it stays unstarted
            super().__enter__()
            return self
        self._api.enter_context(one_api())  # the workers report to this process's API server
        context = SettingsContext.get()
        if context is not None:  # every submit serializes the settings: once is enough
            self._api.enter_context(_SerializedOnce(profile=context.profile, settings=context.settings))
        super().__enter__()  # Prefect's spawn pool: no process is started before the first submit
        if self._initializer is warm_worker:
            self._warm([WARM_MODULE])
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            super().__exit__(*exc_info)
        finally:
            self._api.close()

    def _warm(self, modules: list[str]) -> None:
        """Rebuild the (still empty) pool so that its workers import ``modules`` first: forked from
        the fork server with them preloaded, else spawned and importing them."""
        pool = self._executor
        if pool is None:
            return
        forked = fork_server(modules)
        context = SettingsContext.get()
        self._worker_settings = context.serialize() if forked is not None and context is not None else None
        self._executor = ProcessPoolExecutor(
            max_workers=self._max_workers, mp_context=forked or multiprocessing.get_context("spawn"),
            initializer=pool._initializer,  # type: ignore[attr-defined]  # Prefect's, which calls ours
            initargs=(*pool._initargs[:2],  # type: ignore[attr-defined]
                      (tuple(modules), dict(os.environ) if forked is not None else None, self._worker_settings)))
        pool.shutdown(wait=False)

    def _resolve_futures_and_submit(self, task: Any, task_run_id: UUID, parameters: dict[str, Any],
                                    wait_for: Iterable[PrefectFuture[Any]] | None,
                                    dependencies: dict[str, set[RunInput]] | None, context: dict[str, Any],
                                    env: dict[str, str]) -> Future[bytes]:
        """Prefect's, with the task's settings left out when they are the ones its worker already
        holds (:func:`warm_worker`): the worker then skips hydrating them and its API client."""
        if self._worker_settings is not None and context.get("settings_context") == self._worker_settings:
            context = {**context, "settings_context": {}}
        return super()._resolve_futures_and_submit(task, task_run_id, parameters, wait_for, dependencies, context, env)

    def prestart(self, modules: list[str] | None = None) -> None:
        """Start every worker now, importing ``modules`` too (they warm up while the flow goes on);
        a no-op when the runner is not entered or its pool has started."""
        if self._executor is None or self._executor._processes:  # type: ignore[attr-defined]
            return
        if self._initializer is warm_worker:
            self._warm([WARM_MODULE, *(modules or [])])
        for _ in range(self._max_workers):
            self._executor.submit(_started)


def prestart_workers(cfg: RunConfig) -> None:
    """Start the current flow's fault workers, when its task runner is a :class:`FaultRunner`,
    with the providers ``cfg`` uses imported."""
    context = FlowRunContext.get()
    runner = context.task_runner if context else None
    if isinstance(runner, FaultRunner):
        runner.prestart(provider_modules(cfg))
