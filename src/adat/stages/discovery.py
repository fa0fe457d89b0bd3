"""Discovery: the tester explores the target in planned sessions (paper §2.1, DESIGN §4.1).

Before each session an LLM planner picks an objective and a strategy from the earlier sessions;
during the session an LLM driver writes each user message until it says the objective is met or
cannot be met, or the turn limit is reached.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from adat.config import RunConfig
from adat.errors import TargetError
from adat.llm.types import LLMError
from adat.records import Trace, Turn
from adat.roles import (
    PROMPT_DRIVER,
    PROMPT_PLANNER,
    DriverInput,
    DriverOutput,
    PlannerInput,
    PlannerOutput,
    TurnView,
)
from adat.stages.ids import discovery_trace_id
from adat.stages.provenance import Provenance, call_role
from adat.stages.views import session_summary, trace_view
from adat.targets.base import Target

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


def discover(cfg: RunConfig, client: Any, target: Target, run_id: str, *,
             progress: Progress | None = None) -> list[Trace]:
    """Run ``cfg.discovery.sessions`` discovery sessions against ``target``; one Trace per session.

    A session that fails (the target raises TargetError, or the planner or driver call fails for
    good) ends with ``ended_by='error'`` and keeps the turns it had; the next session still runs.
    ``progress(done, total)`` is called after each session.
    """
    total = cfg.discovery.sessions
    traces: list[Trace] = []
    for session_no in range(1, total + 1):
        traces.append(_one_session(cfg, client, target, run_id, session_no, traces))
        if progress is not None:
            progress(session_no, total)
    return traces


def _one_session(cfg: RunConfig, client: Any, target: Target, run_id: str, session_no: int,
                 earlier: list[Trace]) -> Trace:
    trace = Trace(trace_id=discovery_trace_id(run_id, session_no), run_id=run_id, kind="discovery")
    recent = earlier[-cfg.discovery.planner_recent_traces:] if cfg.discovery.planner_recent_traces else []
    plan_in = PlannerInput(session_no=session_no, sessions_total=cfg.discovery.sessions,
                           tester_facts=list(cfg.tester_facts),
                           earlier_sessions=[session_summary(t) for t in earlier],
                           earlier_traces=[trace_view(t) for t in recent])
    try:
        plan, _ = call_role(client, "planner", PROMPT_PLANNER, plan_in, PlannerOutput)
    except LLMError as exc:
        log.warning("discovery session %d: planner failed: %s", session_no, exc)
        trace.ended_by = "error"
        return trace
    trace.objective, trace.strategy = plan.objective, plan.strategy
    try:
        trace.session_id = target.reset()
    except TargetError as exc:
        log.warning("discovery session %d: target reset failed: %s", session_no, exc)
        trace.ended_by = "error"
        return trace
    _drive(cfg, client, target, trace)
    return trace


def _drive(cfg: RunConfig, client: Any, target: Target, trace: Trace) -> None:
    """Let the driver talk to the target until it stops, the limit is hit or something fails."""
    started = time.monotonic()
    limit = cfg.discovery.turn_limit
    for turn_no in range(1, limit + 1):
        drive_in = DriverInput(objective=trace.objective, strategy=trace.strategy,
                               tester_facts=list(cfg.tester_facts),
                               turns=[TurnView(role=t.role, text=t.text) for t in trace.turns],
                               turn_no=turn_no, turn_limit=limit)
        try:
            step, produced = call_role(client, "driver", PROMPT_DRIVER, drive_in, DriverOutput)
        except LLMError as exc:
            log.warning("discovery %s: driver failed: %s", trace.trace_id, exc)
            trace.ended_by = "error"
            break
        _stamp(trace, produced)
        if step.status != "continue":
            trace.ended_by = step.status
            break
        if not step.message.strip():
            # 'continue' without a message is a driver malfunction; sending "" would test nothing.
            log.warning("discovery %s: driver sent an empty message", trace.trace_id)
            trace.ended_by = "error"
            break
        trace.turns.append(Turn(role="user", text=step.message, ts=time.monotonic() - started))
        try:
            reply = target.invoke(trace.session_id, step.message)
        except TargetError as exc:
            log.warning("discovery %s: target failed: %s", trace.trace_id, exc)
            trace.ended_by = "error"
            break
        trace.turns.append(Turn(role="agent", text=reply, ts=time.monotonic() - started))
    else:
        trace.ended_by = "turn_limit"


def _stamp(trace: Trace, produced: Provenance) -> None:
    """A discovery trace is produced by its driver (the planner only names the objective)."""
    trace.produced_by, trace.prompt_id, trace.prompt_version = (
        produced.produced_by, produced.prompt_id, produced.prompt_version)
