"""How the adat CLI runs a flow: in the command's own process, in the foreground, on one API.

Prefect's flow engine keeps a heartbeat thread per flow run (``PREFECT_FLOWS_HEARTBEAT_FREQUENCY``,
180 s by default) whose events let an automation mark a run whose process vanished as crashed.
The thread sleeps in 1 s steps and the engine joins it when the flow run ends, so every flow run
of a command (each subflow too) ends 0–1 s late: half a second, on average, of the fixed cost of
every command. A command runs in its user's terminal, which shows when it dies; so the CLI's
flows run without heartbeats unless the user set a frequency (environment or Prefect profile:
that value wins). Flows a deployment runs (the nightly flow on a worker) keep Prefect's default.

Without an API URL (no ``adat server``, nothing exported) Prefect starts a temporary API server
for the process at its first client. A worker process of the flow (a fault regression's, a Dask
worker) has no URL either, so each would start a server of its own — seconds each, another
writer on the same database, and, for a worker that ends without exit handlers (a forked one),
left running after the command. :func:`one_api` starts the process's temporary server up front
(behind the parent-death guard, :mod:`adat.child_guard`: it dies with the command, even after
``kill -9``) and hands its URL to everything the flow starts.

Ctrl-C and SIGTERM are the command's own (:mod:`adat.interrupts`): Prefect's SIGTERM bridge is
left out of a foreground flow run (``flows._prefect_internals.without_sigterm_bridge``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from prefect.settings import (
    PREFECT_API_URL,
    PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
    get_current_settings,
    temporary_settings,
)

from flows._prefect_internals import without_sigterm_bridge


@contextlib.contextmanager
def one_api() -> Iterator[None]:
    """Within: the settings name this process's API server, the temporary one when none is set."""
    if get_current_settings().api.url:
        yield
        return
    from flows._prefect_internals import temporary_server

    server = temporary_server()  # the one Prefect's first client would start (a singleton), guarded
    with temporary_settings(updates={PREFECT_API_URL: server.api_url}):
        yield


class _NoStageFailedTraceback(logging.Filter):
    """A run that stops because its models failed (:class:`adat.errors.StageFailed`) is no bug: the
    engine's log records keep their one line, without the traceback; the CLI prints the reason."""

    def filter(self, record: logging.LogRecord) -> bool:
        from adat.errors import StageFailed

        if record.exc_info and isinstance(record.exc_info[1], StageFailed):
            record.exc_info = None
            record.exc_text = None
        return True


_ENGINE_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")


def run_in_foreground(flow: Any, **params: Any) -> Any:
    """Call ``flow`` with ``params``: heartbeats off unless configured, one API for every process."""
    quiet = _NoStageFailedTraceback()
    for name in _ENGINE_LOGGERS:
        logging.getLogger(name).addFilter(quiet)
    try:
        with (temporary_settings(set_defaults={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}), one_api(),
              without_sigterm_bridge()):
            return flow(**params)
    finally:
        for name in _ENGINE_LOGGERS:
            logging.getLogger(name).removeFilter(quiet)
