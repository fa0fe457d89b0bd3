"""Flow-run names that carry the adat run id, so the Prefect UI lists a night by its run.

A flow started without a run id in its config gets one derived from its flow run (scheduled
start and id): the name, computed before the flow body runs, and the body agree on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from prefect.runtime import flow_run

from adat.engine.context import new_run_id


def flow_run_run_id(config: Any) -> str:
    """``config``'s run id (a RunConfig, or its dict before validation), else the flow run's own."""
    given = config.get("run_id") if isinstance(config, Mapping) else getattr(config, "run_id", None)
    if given:
        return str(given)
    token = str(flow_run.id or "").replace("-", "")[-4:]  # random in uuid4 and uuid7 alike
    return new_run_id(now=flow_run.scheduled_start_time, token=token or None)


def nightly_run_id(prefix: str) -> str:
    """``<prefix>-<scheduled start, UTC, to the minute>``: a cron night keeps its date however late it starts."""
    return f"{prefix}-{flow_run.scheduled_start_time:%Y%m%d-%H%M}"


def run_named(suffix: str, parameter: str = "config") -> Callable[[], str]:
    """A ``flow_run_name`` callable: ``<run id>-<suffix>``, the run id from the flow's ``parameter``."""
    def name() -> str:
        value = flow_run.parameters.get(parameter)
        run_id = value if isinstance(value, str) else flow_run_run_id(value)
        return f"{run_id}-{suffix}"

    name.__name__ = f"run_named_{suffix.replace('-', '_')}"
    return name


def nightly_name() -> str:
    """The nightly flow run's name: its run id."""
    return nightly_run_id(str(flow_run.parameters.get("run_prefix") or "nightly"))
