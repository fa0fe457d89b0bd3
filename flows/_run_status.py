"""A run whose flow fails (or crashes) after the run started is marked ``failed``, not left ``running``.

Flows record their run through :func:`open_run` (the ``start-run`` task, then the run is
remembered under the current flow run's id); :data:`RUN_HOOKS` are the flows' Prefect state hooks:
on failure or crash every run the flow run opened that is still ``running`` becomes ``failed``
with the error's one line (and the DuckDB catalog is rebuilt, so ``adat show`` and ``stg_runs``
say so); on completion the flow run is forgotten. A budget stop is not a failure: the flows catch
it and finish the run as ``budget_exhausted`` themselves.

Before a run is recorded, the flow claims its run id (:mod:`adat.engine.run_claims`): an id
another flow recorded, or one a live process writes right now, is refused in one line; the hooks
give the claim back when the flow run ends.
"""

from __future__ import annotations

from typing import Any

from prefect.logging.loggers import flow_run_logger
from prefect.runtime import flow_run as current_flow_run

from adat.config import RunConfig
from adat.engine.context import StepResult
from adat.engine.run_claims import claim_run, release
from adat.engine.stage_runner import fail_run
from tasks import stage_tasks as t

#: flow run id -> the runs it opened (config, run id, flow name, whether it holds the claim), in this process
_OPEN: dict[str, list[tuple[RunConfig, str, str, bool]]] = {}


def remember_run(cfg: RunConfig, run_id: str, flow: str, claimed: bool = False) -> None:
    """Let the current flow run's failure hooks close run ``run_id`` if the flow fails (and give
    back its claim, ``claimed``, whatever the end)."""
    _OPEN.setdefault(str(current_flow_run.id), []).append((cfg, run_id, flow, claimed))


def open_run(cfg: RunConfig, run_id: str, flow: str, suite_run_id: str = "") -> StepResult:
    """Claim run id ``run_id`` for ``flow`` (RunIdInUse when another flow's or being written),
    record the run as ``running`` (``suite_run_id``: the suite a run-suite run executes) and
    remember it for the hooks."""
    claim_run(cfg.data_path(), run_id, flow)
    try:
        started: StepResult = t.start_run(cfg, run_id, flow, suite_run_id)
    except BaseException:
        release(cfg.data_path(), run_id)
        raise
    remember_run(cfg, run_id, flow, claimed=True)
    return started


def error_line(state: Any) -> str:
    """The one line of the error a failed or crashed flow state holds."""
    try:
        exc = state.result(raise_on_failure=False)
    except Exception:  # the result could not be read: the state's message says enough
        exc = None
    if isinstance(exc, BaseException):
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    else:
        text = state.message or state.name or "failed"
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[0][:500] if lines else str(state.name)


def close_runs(_flow: Any, flow_run: Any, state: Any) -> None:
    """State hook: mark the runs this flow run opened ``failed`` when it failed or crashed."""
    opened = _OPEN.pop(str(flow_run.id), [])
    try:
        if not (state.is_failed() or state.is_crashed()):
            return
        line = error_line(state)
        for cfg, run_id, flow, _ in opened:
            if fail_run(cfg, run_id, flow, line):
                flow_run_logger(flow_run).error("run %s marked failed: %s", run_id, line)
    finally:
        for cfg, run_id, _, claimed in opened:
            if claimed:
                release(cfg.data_path(), run_id)


#: keyword arguments for ``@flow``: the hooks above on failure, crash and completion
RUN_HOOKS: dict[str, Any] = {"on_failure": [close_runs], "on_crashed": [close_runs], "on_completion": [close_runs]}
