"""Discovery: planner before each session, driver until met / cannot / turn limit, errors contained."""

from __future__ import annotations

from adat.errors import TargetError
from adat.llm.types import LLMError
from adat.stages.discovery import discover
from tests.test_stages.conftest import RUN, Roles, ScriptedTarget


def plan(n: int) -> dict[str, str]:
    return {"objective": f"objective {n}", "strategy": f"strategy {n}", "rationale": ""}


def say(text: str) -> dict[str, str]:
    return {"status": "continue", "message": text}


def test_sessions_end_on_met_cannot_and_turn_limit(roles: Roles) -> None:
    roles.cfg.discovery.sessions = 3
    roles.cfg.discovery.turn_limit = 2
    planner = roles.script("planner", [plan(1), plan(2), plan(3)])
    roles.script("driver", [
        say("cancel my order"), {"status": "met", "message": ""},           # session 1: met after 1 turn
        {"status": "cannot", "message": ""},                                 # session 2: gives up at once
        say("hello"), say("return an item"),                                 # session 3: turn limit (2)
    ])
    target = ScriptedTarget({"cancel": "Only pending orders can be cancelled."}, default="How can I help?")
    progress: list[tuple[int, int]] = []
    traces = discover(roles.cfg, roles.client(), target, RUN, progress=lambda d, t: progress.append((d, t)))

    assert [t.ended_by for t in traces] == ["met", "cannot", "turn_limit"]
    assert [len(t.turns) for t in traces] == [2, 0, 4]
    assert traces[0].turns[1].text == "Only pending orders can be cancelled."
    assert [t.objective for t in traces] == ["objective 1", "objective 2", "objective 3"]
    assert len({t.trace_id for t in traces}) == 3 and all(t.kind == "discovery" for t in traces)
    assert [t.session_id for t in traces] == ["s1", "s2", "s3"]
    assert traces[0].produced_by == "fake/driver" and traces[0].prompt_id == "driver"
    assert traces[0].prompt_version == "1"
    assert progress == [(1, 3), (2, 3), (3, 3)]
    # The planner of session 3 saw both earlier sessions, and the driver's history grew.
    third = planner.requests[2].variables
    assert [s["objective"] for s in third["earlier_sessions"]] == ["objective 1", "objective 2"]
    assert third["earlier_sessions"][0]["last_agent_reply"] == "Only pending orders can be cancelled."
    assert third["session_no"] == 3 and third["sessions_total"] == 3


def test_planner_sees_only_the_most_recent_traces(roles: Roles) -> None:
    roles.cfg.discovery.sessions = 3
    roles.cfg.discovery.planner_recent_traces = 1
    planner = roles.script("planner", [plan(1), plan(2), plan(3)])
    roles.script("driver", [{"status": "met", "message": ""}] * 3)
    discover(roles.cfg, roles.client(), ScriptedTarget(), RUN)
    assert [len(r.variables["earlier_traces"]) for r in planner.requests] == [0, 1, 1]
    assert planner.requests[2].variables["earlier_traces"][0]["objective"] == "objective 2"


def test_target_error_ends_the_session_and_the_run_goes_on(roles: Roles) -> None:
    roles.cfg.discovery.sessions = 2
    roles.cfg.discovery.turn_limit = 5
    roles.script("planner", [plan(1), plan(2)])
    roles.script("driver", [say("hi"), say("crash now"), say("hi again"), {"status": "met", "message": ""}])
    target = ScriptedTarget({"crash": TargetError("HTTP 500")}, default="Hello.")
    traces = discover(roles.cfg, roles.client(), target, RUN)

    assert traces[0].ended_by == "error"
    # the turn before the failure is kept, and the message that failed is recorded without a reply
    assert [(t.role, t.text) for t in traces[0].turns] == [("user", "hi"), ("agent", "Hello."),
                                                          ("user", "crash now")]
    assert traces[1].ended_by == "met" and len(traces[1].turns) == 2


def test_failed_reset_planner_and_driver_end_their_session_only(roles: Roles) -> None:
    roles.cfg.discovery.sessions = 3
    roles.script("planner", [LLMError("planner down"), plan(2), plan(3)])
    roles.script("driver", [LLMError("driver down"), say("  ")])
    traces = discover(roles.cfg, roles.client(), ScriptedTarget(), RUN)
    assert [t.ended_by for t in traces] == ["error", "error", "error"]
    assert traces[0].objective == "" and traces[1].objective == "objective 2"
    assert all(not t.turns for t in traces)  # an empty 'continue' message is never sent

    roles2 = Roles(roles.tmp_path / "2", roles.cfg)
    roles2.cfg.discovery.sessions = 1
    roles2.script("planner", [plan(1)])
    roles2.script("driver", [])
    traces = discover(roles2.cfg, roles2.client(), ScriptedTarget(fail_reset=True), RUN)
    assert traces[0].ended_by == "error" and traces[0].session_id == ""
    assert not roles2.fakes["driver"].requests


def test_many_long_sessions_reach_the_planner_cut_to_its_context(roles: Roles) -> None:
    """A small llm.context_tokens: later planners get the newest traces whole-or-not and every
    request fits; the rows record the cuts (adat.llm.context_budget)."""
    from adat.llm.context_budget import request_tokens

    roles.cfg.discovery.sessions = 8
    roles.cfg.discovery.turn_limit = 2
    roles.cfg.discovery.planner_recent_traces = 5
    roles.cfg.llm.context_tokens, roles.cfg.llm.max_output_tokens = 4000, 1000
    planner = roles.script("planner", [plan(n) for n in range(1, 9)])
    roles.script("driver", [say("what are the rules?"), say("and the exceptions?")] * 8)
    long_reply = "".join(f"Rule {i}: an order can be returned within {i} days. " for i in range(20))
    client = roles.client()
    traces = discover(roles.cfg, client, ScriptedTarget(default=long_reply), RUN)

    assert len(traces) == 8 and all(len(t.turns) == 4 for t in traces)
    assert all(request_tokens(r) <= 3000 for r in planner.requests)
    shown = [[t["trace_id"] for t in r.variables["earlier_traces"]] for r in planner.requests]
    assert 0 < len(shown[-1]) < 5 and shown[-1] == [t.trace_id for t in traces[:7]][-len(shown[-1]):]
    rows = [r for r in client.drain_calls() if r.role == "planner"]
    cut = [r for r in rows if r.cut_rule]
    assert cut and rows[0].cut_rule == "" and all(r.cut_chars > 0 and r.cut_items > 0 for r in cut)
