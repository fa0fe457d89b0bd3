"""How the adat CLI runs a flow: in the command's own process, in the foreground.

Prefect's flow engine keeps a heartbeat thread per flow run (``PREFECT_FLOWS_HEARTBEAT_FREQUENCY``,
180 s by default) whose events let an automation mark a run whose process vanished as crashed.
The thread sleeps in 1 s steps and the engine joins it when the flow run ends, so every flow run
of a command (each subflow too) ends 0–1 s late: half a second, on average, of the fixed cost of
every command. A command runs in its user's terminal, which shows when it dies; so the CLI's
flows run without heartbeats unless the user set a frequency (environment or Prefect profile:
that value wins). Flows a deployment runs (the nightly flow on a worker) keep Prefect's default.
"""

from __future__ import annotations

from typing import Any

from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings


def run_in_foreground(flow: Any, **params: Any) -> Any:
    """Call ``flow`` with ``params``: heartbeats off unless configured."""
    with temporary_settings(set_defaults={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        return flow(**params)
