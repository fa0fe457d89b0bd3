"""Discovery: the tester explores the target in planned sessions (paper §2.1, DESIGN §4.1).

Before each session an LLM planner picks an objective and a strategy from the earlier sessions;
during the session an LLM driver writes each user message until it says the objective is met or
cannot be met, or the turn limit is reached.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence

from adat import conversation
from adat.config import RunConfig
from adat.contracts.adat2_roles import (
    PROMPT_DRIVER,
    PROMPT_PLANNER,
    DriverInput,
    DriverOutput,
    PlannerInput,
    PlannerOutput,
    TurnView,
)
from adat.conversation import EndedBy, Stop
from adat.engine.context import RunContext
from adat.engine.stage_runner import Outcome
from adat.llm.types import LLMError, TesterLLM
from adat.records import Trace, Turn
from adat.stages.ids import discovery_trace_id
from adat.stages.provenance import Provenance, call_role
from adat.stages.views import session_summary, trace_view
from adat.targets.base import Target

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


def discovery_step(ctx: RunContext) -> Outcome:
    """Discovery sessions against the target (planner + driver) → traces, rule side log."""
    target = ctx.target(scope="disc")
    traces = discover(ctx.cfg, ctx.client, target, ctx.run_id, progress=ctx.progress("discovery sessions"))
    ctx.write("traces", traces)
    ctx.write("rule_events", ctx.rule_events(target, traces, ctx.variant()), owner="discovery")
    return Outcome(counts={f"ended_{k}": v for k, v in Counter(t.ended_by for t in traces).items()})


def discover(cfg: RunConfig, client: TesterLLM, target: Target, run_id: str, *,
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


def _one_session(cfg: RunConfig, client: TesterLLM, target: Target, run_id: str, session_no: int,
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
    driver = LLMDriver(cfg, client, trace)
    conv = conversation.converse(target, driver, turn_limit=cfg.discovery.turn_limit)
    trace.session_id, trace.turns, trace.ended_by = conv.session_id, conv.turns, conv.ended_by
    if conv.error is not None:
        log.warning("discovery %s: target failed: %s", trace.trace_id, conv.error)
    if driver.produced is not None:  # produced by its driver (the planner only names the objective)
        trace = trace.model_copy(update=driver.produced.fields())
    return trace


class LLMDriver:
    """The discovery user: the driver role writes each message towards the session's objective
    and says when it is met or cannot be met. A driver that fails, or says 'continue' with no
    message (sending "" would test nothing), ends the session with ``error``."""

    def __init__(self, cfg: RunConfig, client: TesterLLM, trace: Trace) -> None:
        self.cfg, self.client, self.trace = cfg, client, trace
        self.produced: Provenance | None = None  # of the last driver answer: the trace's provenance

    def next_message(self, turns: Sequence[Turn], turn_no: int, turn_limit: int) -> str | Stop:
        drive_in = DriverInput(objective=self.trace.objective, strategy=self.trace.strategy,
                               tester_facts=list(self.cfg.tester_facts),
                               turns=[TurnView(role=t.role, text=t.text) for t in turns],
                               turn_no=turn_no, turn_limit=turn_limit)
        try:
            step, self.produced = call_role(self.client, "driver", PROMPT_DRIVER, drive_in, DriverOutput)
        except LLMError as exc:
            log.warning("discovery %s: driver failed: %s", self.trace.trace_id, exc)
            return Stop("error")
        if step.status != "continue":
            return Stop(step.status)
        if not step.message.strip():
            log.warning("discovery %s: driver sent an empty message", self.trace.trace_id)
            return Stop("error")
        return step.message

    def at_limit(self, turn_limit: int) -> EndedBy:
        return "turn_limit"
