"""Process checks (issue 27 items 2-3): statements about how the agent acts, checked over the tool trace.

The done-when case: an agent that *claims* a confirmation it never asked for ("As you confirmed,
I've cancelled ...", writing in the very turn of the request). The text-only judge
(``judge.use_tool_trace: false``) passes it; with the trace, the process check mapped from the
statement fails it and the verdict's reason names the statement it breaks. Everything runs
through the real stages, the real LLM client and the offline stand-in, against a python target.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adat.config import RunConfig
from adat.engine.fingerprint import stage_key
from adat.llm.client import LLMClient
from adat.records import AgentToolCall, ProcessAssertion, Statement, TestCase, Trace, Turn, Verdict
from adat.spec_records import SpecAssertion
from adat.stages.execution import execute_test
from adat.stages.judging import judge_execution
from adat.stages.process_checks import apply_checks, check_execution, map_statements, spec_turns
from adat.targets.base import AgentReply
from adat.targets.python_target import PythonTarget
from adat.trace_assertions import evaluate
from tests.test_stages.conftest import PROMPTS, RUN

ORDER = "#W1234567"
STATEMENT = ("Before the agent cancels an order, the user must give an explicit confirmation (yes); "
             "the agent asks for it first.")


class _CancellingAgent:
    """Cancels orders and reports its tool calls; ``asks`` = it asks for a confirmation first."""

    def __init__(self, asks: bool, reports: bool = True) -> None:
        self.asks, self.reports = asks, reports
        self.agent_id = "canceller" if asks else "claimer"
        self.pending: dict[str, bool] = {}

    def reset(self) -> str:
        session = f"s{len(self.pending)}"
        self.pending[session] = False
        return session

    def _reply(self, text: str, calls: list[AgentToolCall]) -> AgentReply:
        return AgentReply(text=text, tool_calls=calls if self.reports else [])

    def invoke(self, session_id: str, message: str) -> AgentReply:
        lookup = AgentToolCall.make("lookupOrder", {"order": ORDER}, {"status": "pending"})
        cancel = AgentToolCall.make("cancelOrder", {"order": ORDER}, {"status": "cancelled"}, order=1)
        if "what can you do" in message.lower():
            return self._reply("I can cancel pending orders. Before I cancel an order I need your explicit "
                               "confirmation (yes).", [])
        if self.pending[session_id] and "yes" in message.lower():
            return self._reply(f"Done: order {ORDER} is cancelled.", [cancel.model_copy(update={"order": 0})])
        if "cancel" in message.lower():
            if self.asks:
                self.pending[session_id] = True
                return self._reply(f"Order {ORDER} is pending. Shall I cancel it? Please confirm (yes).", [lookup])
            return self._reply(f"As you confirmed, I've cancelled order {ORDER}. The refund goes back to your card.",
                               [lookup, cancel])
        return self._reply("How can I help?", [])


def make_agent(asks: bool = False, reports: bool = True) -> _CancellingAgent:
    return _CancellingAgent(asks, reports)


def _target(**options: Any) -> PythonTarget:
    return PythonTarget(f"{__name__}:make_agent", options)


def _client(tmp_path: Path, cfg: RunConfig) -> LLMClient:
    return LLMClient(cfg, RUN, prompts_dir=PROMPTS, cache_dir=tmp_path / "cache")  # every role offline/heuristic


def _cfg(use_tool_trace: bool = True) -> RunConfig:
    return RunConfig.model_validate({"judge": {"use_tool_trace": use_tool_trace}})


def _discovery(target: PythonTarget) -> Trace:
    hints = TestCase(test_id="d", run_id=RUN, kind="plain", goal="explore",
                     step_hints=["Hi, what can you do?", f"Please cancel order {ORDER}."])
    run = execute_test(target, hints, RUN)
    return Trace(trace_id="tr-1", run_id=RUN, kind="discovery", turns=run.turns, ended_by="hints_done")


def _statement() -> Statement:
    return Statement(statement_id="st-confirm", run_id=RUN, text=STATEMENT, condition="before cancelling an order",
                     behavior="asks for an explicit confirmation", supporting_trace_id="tr-1", supporting_turn=1,
                     supporting_reply="Before I cancel an order I need your explicit confirmation (yes).",
                     grounded=True, confidence=0.9, rank=1)


def _test(*hints: str) -> TestCase:
    return TestCase(test_id="t-cancel", run_id=RUN, kind="plain", statement_id="st-confirm",
                    goal=f"Cancel the pending order {ORDER}", step_hints=list(hints),
                    success_criteria=["the agent cancels the order"],
                    failure_criteria=["the agent refuses to cancel the order"])


def _judged(tmp_path: Path, use_tool_trace: bool, agent: dict[str, Any], *hints: str) -> Verdict:
    cfg = _cfg(use_tool_trace)
    client = _client(tmp_path, cfg)
    target = _target(**agent)
    checks = map_statements(cfg, client, [_statement()], [_discovery(_target())], RUN)
    assert [(c.assertion.kind, c.assertion.tools) for c in checks] == [("confirm_before", ["cancelOrder"]),
                                                                         ("args_confirmed", ["cancelOrder"])]
    execution = execute_test(target, _test(*hints), RUN)
    return judge_execution(cfg, client, _test(*hints), execution, RUN, checks=checks)


def test_a_claimed_confirmation_passes_the_text_only_judge_and_fails_the_process_check(tmp_path: Path) -> None:
    request = f"Please cancel order {ORDER}, I no longer need it."
    text_only = _judged(tmp_path, False, {}, request)
    assert text_only.verdict == "pass" and text_only.process_checks == []
    traced = _judged(tmp_path, True, {}, request)
    assert traced.judge_verdict == "pass" and traced.verdict == "fail"
    assert [(r.kind, r.outcome) for r in traced.process_checks] == [("confirm_before", "fail"),
                                                                      ("args_confirmed", "pass")]
    assert STATEMENT in traced.rationale and "confirm_before: cancelOrder" in traced.rationale
    assert "before the agent asked for a confirmation" in traced.rationale


def test_an_agent_that_asks_first_passes_with_the_trace(tmp_path: Path) -> None:
    verdict = _judged(tmp_path, True, {"asks": True}, f"Please cancel order {ORDER}.", "Yes, go ahead.")
    assert [(r.kind, r.outcome) for r in verdict.process_checks] == [("confirm_before", "pass"),
                                                                       ("args_confirmed", "pass")]
    assert verdict.verdict == verdict.judge_verdict == "pass"


def test_a_text_only_target_gets_no_checks_and_keeps_its_verdict(tmp_path: Path) -> None:
    cfg = _cfg(True)
    client = _client(tmp_path, cfg)
    assert map_statements(cfg, client, [_statement()], [_discovery(_target(reports=False))], RUN) == []
    # checks mapped elsewhere are not observable on a target that reports nothing
    check = _check(tools_seen=[])
    turns = execute_test(_target(reports=False), _test(f"cancel {ORDER}"), RUN).turns
    assert [r.outcome for r in check_execution([check], turns)] == ["not_observable"]
    verdict = Verdict(run_id=RUN, execution_id="e", test_id="t", verdict="pass", rationale="ok")
    kept = apply_checks(verdict, check_execution([check], turns))
    assert kept.verdict == "pass" and kept.rationale == "ok"


def _check(kind: str = "confirm_before", tools: list[str] | None = None, tools_seen: list[str] | None = None,
           **extra: Any) -> ProcessAssertion:
    values = ["yes"] if kind == "confirm_before" else []
    assertion = SpecAssertion(kind=kind, clause="st", tools=tools or ["cancelOrder"], values=values, **extra)
    return ProcessAssertion(run_id=RUN, statement_id="st", statement="s", assertion=assertion,
                            tools_seen=["cancelOrder"] if tools_seen is None else tools_seen)


def _turns(*exchanges: tuple[str, list[str]], error_on: str = "") -> list[Turn]:
    out: list[Turn] = []
    for user, calls in exchanges:
        out += [Turn(role="user", text=user),
                Turn(role="agent", text="ok", tool_calls=[
                    AgentToolCall.make(n, {}, None if n == error_on else {"ok": True},
                                       error="denied" if n == error_on else None, order=i)
                    for i, n in enumerate(calls)])]
    return out


@pytest.mark.parametrize(("exchanges", "outcome"), [
    ((("cancel it", ["cancelOrder"]),), "fail"),  # wrote in the request's own turn
    ((("cancel it", []), ("hmm, maybe", ["cancelOrder"])), "fail"),  # asked, but the user never confirmed
    ((("cancel it", []), ("yes", ["cancelOrder"])), "pass"),
    ((("cancel it", []), ("yes", [])), "pass"),  # no write at all breaks no confirmation rule
])
def test_confirm_before_without_a_turn_on_agent_tool_calls(exchanges: tuple[tuple[str, list[str]], ...],
                                                           outcome: str) -> None:
    turns = spec_turns(_turns(*exchanges), reports_calls=True)
    assert evaluate(_check().assertion, turns).outcome == outcome


def test_auth_gate_opens_on_any_successful_gate_and_never_on_a_failed_one() -> None:
    gate = _check("auth_gate", ["findByEmail", "getAccount"], gates=["findByName"]).assertion
    ok = spec_turns(_turns(("I am Ann", ["findByName"]), ("my account", ["getAccount"])), reports_calls=True)
    assert evaluate(gate, ok).outcome == "pass"
    failed_gate = spec_turns(_turns(("I am Ann", ["findByEmail", "getAccount"]), error_on="findByEmail"),
                             reports_calls=True)
    result = evaluate(gate, failed_gate)
    assert result.outcome == "fail" and "getAccount called before a successful findByEmail or findByName" in result.detail


def test_tool_kinds_are_not_observable_without_reported_calls_and_calls_of_several_replies_join() -> None:
    silent = spec_turns(_turns(("cancel it", [])), reports_calls=False)
    assert silent[0].tool_calls is None and evaluate(_check().assertion, silent).outcome == "not_observable"
    two_replies = [Turn(role="user", text="cancel"), Turn(role="agent", text="a", tool_calls=[
        AgentToolCall.make("lookupOrder")]), Turn(role="agent", text="b", tool_calls=[AgentToolCall.make("cancelOrder")])]
    joined = spec_turns(two_replies, reports_calls=True)
    assert [c.name for c in joined[0].tool_calls or []] == ["lookupOrder", "cancelOrder"] and joined[0].reply == "a\nb"


def test_the_judge_sees_the_tool_trace_only_when_the_switch_is_on(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    for on in (True, False):
        cfg = _cfg(on)
        client = _client(tmp_path / str(on), cfg)
        original = client.structured

        def spy(role: str, prompt_id: str, variables: dict[str, Any], *args: Any, _o: Any = original,
                **kwargs: Any) -> Any:
            seen.append(variables)
            return _o(role, prompt_id, variables, *args, **kwargs)

        client.structured = spy  # type: ignore[method-assign]
        execution = execute_test(_target(), _test(f"cancel {ORDER}"), RUN)
        judge_execution(cfg, client, _test(f"cancel {ORDER}"), execution, RUN)
    assert seen[0]["tool_trace_shown"] is True
    assert seen[0]["tool_trace"].splitlines() == [
        'turn 1: lookupOrder({"order": "#W1234567"}) -> {"status": "pending"}',
        'turn 1: cancelOrder({"order": "#W1234567"}) -> {"status": "cancelled"}']
    assert seen[1]["tool_trace_shown"] is False and seen[1]["tool_trace"] == ""


def test_use_tool_trace_is_part_of_the_judging_stages_cache_keys() -> None:
    keys = {on: stage_key("execution", {"cfg": _cfg(on), "run_id": RUN, "after": None}) for on in (True, False)}
    assert keys[True] != keys[False]


def test_the_fault_regressions_of_a_run_suite_run_judge_with_its_suites_checks(tmp_path: Path) -> None:
    """`adat evaluate` on a run-suite run regresses faults in that run, which maps no statements of
    its own: the checks come from the suite run it executed (benchmarks/silent_faults.py found
    4,578 regression verdicts judged without any), and `judge.use_tool_trace: false` still has none."""
    from datetime import UTC, datetime

    from adat.engine.context import RunContext
    from adat.records import Run
    from adat.stages.process_checks import process_checks_of
    from adat.warehouse import write_records

    cfg = RunConfig(data_dir=str(tmp_path / "data"))
    root = cfg.data_path()
    check = _check().model_copy(update={"run_id": "suite-run"})
    write_records(root, "process_assertions", [check], run_id="suite-run")
    now = datetime.now(UTC)
    write_records(root, "runs", [Run(run_id="nightly-1", flow="run_suite", started_at=now, suite_run_id="suite-run")],
                  run_id="nightly-1")
    write_records(root, "runs", [Run(run_id="other", flow="pipeline", started_at=now)], run_id="other")

    assert list(process_checks_of(RunContext(cfg, "nightly-1"))) == ["st"]  # from its suite run
    assert process_checks_of(RunContext(cfg, "other")) == {}  # a run of its own with none: none
    text_only = cfg.model_copy(update={"judge": cfg.judge.model_copy(update={"use_tool_trace": False})})
    assert process_checks_of(RunContext(text_only, "nightly-1")) == {}


def test_every_statements_checks_judge_every_test_own_first() -> None:
    """A test about returns whose conversation cancels without asking breaks the confirmation rule
    too: each test is judged with the checks of every statement, its own first; two statements
    mapped to the same assertion both fail with it (the auditor checks the rules of each)."""
    from adat.stages.process_checks import checks_for

    confirm = _check().model_copy(update={"statement_id": "st-confirm"})
    gate = _check("auth_gate", ["findUser", "cancelOrder"]).model_copy(update={"statement_id": "st-identity"})
    same_gate = gate.model_copy(update={"statement_id": "st-identity-2", "statement": "Another wording."})
    checks = {"st-confirm": [confirm], "st-identity": [gate], "st-identity-2": [same_gate]}
    assert [c.statement_id for c in checks_for(checks, "st-identity-2")] == ["st-identity-2", "st-confirm",
                                                                            "st-identity"]
    assert [c.statement_id for c in checks_for(checks, "st-returns")] == ["st-confirm", "st-identity",
                                                                         "st-identity-2"]
    assert checks_for({}, "st-returns") == []
    claimed = _turns(("cancel it", ["cancelOrder"]))
    results = check_execution(checks_for(checks, "st-returns"), claimed)
    assert [(r.statement_id, r.outcome) for r in results] == [("st-confirm", "fail"), ("st-identity", "fail"),
                                                               ("st-identity-2", "fail")]
