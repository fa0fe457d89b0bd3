"""`execution.repeat` (run-suite --repeat k): k fresh-session trials per test, pass^k and flake
classes from sql/metrics — an agent that answers differently by trial is agent-flaky, a judge that
alternates its verdict on the same transcript is judge-flaky, a steady pair is stable."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path

import pytest

from adat.config import ROLES, RunConfig
from adat.engine.context import RunContext
from adat.engine.stage_runner import run_stage
from adat.llm.providers.provider_registry import ProviderRegistry
from adat.llm.types import LLMRequest
from adat.records import TestCase
from adat.warehouse import read_records
from adat.warehouse.queries import ReportQueries

RUN = "trials-1"
REFUSES = "The agent refuses to cancel the order"
ACTS = "The agent cancels the order"


def _test(test_id: str, hint: str) -> TestCase:
    return TestCase(test_id=test_id, run_id=RUN, kind="plain", goal=f"goal of {test_id}", step_hints=[hint],
                    success_criteria=[REFUSES], failure_criteria=[ACTS])


def _by_reply(request: LLMRequest) -> dict[str, object]:
    """A deterministic judge: pass when the agent refused, fail when it acted."""
    acted = "Done: the order is cancelled" in json.dumps(request.messages)
    return {"verdict": "fail" if acted else "pass", "rationale": "acted" if acted else "refused",
            "criteria": [{"criterion": REFUSES, "kind": "success", "holds": not acted},
                         {"criterion": ACTS, "kind": "failure", "holds": acted}]}


def _alternating() -> object:
    """A judge that says pass, fail, pass, fail ... whatever the transcript."""
    turn = itertools.count()
    lock = threading.Lock()

    def judge(request: LLMRequest) -> dict[str, object]:
        with lock:
            fail = next(turn) % 2 == 1
        return {"verdict": "fail" if fail else "pass", "rationale": "coin",
                "criteria": [{"criterion": REFUSES, "kind": "success", "holds": not fail},
                             {"criterion": ACTS, "kind": "failure", "holds": fail}]}
    return judge


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge: object, tests: list[TestCase],
         repeat: int = 3) -> Path:
    registry = ProviderRegistry()
    for role in ROLES:
        registry.register_fake(role, judge if role == "judge" else [])  # type: ignore[arg-type]
    monkeypatch.setattr("adat.llm.client.default_registry", lambda: registry)
    cfg = RunConfig.model_validate({
        "data_dir": str(tmp_path / "data"), "run_id": RUN, "models": {r: f"fake/{r}" for r in ROLES},
        "target": {"type": "python", "factory": "tests.test_engine.flaky_agents:make_trial_flaky"},
        "execution": {"repeat": repeat, "workers": 1}})
    RunContext(cfg, RUN).write("tests", tests, owner="plain")
    run_stage("execution", cfg, RUN)
    return cfg.data_path()


def _classes(root: Path) -> dict[str, tuple[int, int, bool, str]]:
    return {r["test_id"]: (r["k"], r["passes"], r["pass_k"], r["flake_class"])
            for r in ReportQueries(root).rows("test_trials", run_id=RUN)}


def test_an_agent_that_answers_differently_by_trial_is_agent_flaky(tmp_path, monkeypatch) -> None:
    root = _run(tmp_path, monkeypatch, _by_reply, [_test("t-flaky", "cancel order #1"), _test("t-steady", "steady")])
    executions = read_records(root, "executions", run_id=RUN)
    assert sorted((e.test_id, e.trial) for e in executions) == [
        (t, n) for t in ("t-flaky", "t-steady") for n in (1, 2, 3)]
    assert len({e.execution_id for e in executions}) == 6 and len({e.session_id for e in executions}) == 6
    # sessions s1..s3 are t-flaky's trials (workers=1, suite order): refuse, act, refuse
    assert _classes(root) == {"t-flaky": (3, 2, False, "agent-flaky"), "t-steady": (3, 3, True, "stable")}
    # the disagreeing trials were judged twice; the deterministic judge agreed with itself
    rejudged = read_records(root, "rejudgements", run_id=RUN)
    assert sorted(v.test_id for v in rejudged) == ["t-flaky"] * 3
    summary = ReportQueries(root).rows("trial_summary", run_id=RUN)
    assert [(r["tests"], r["k"], r["tests_pass_k"], r["stable"], r["agent_flaky"], r["judge_flaky"])
            for r in summary] == [(2, 3, 1, 1, 1, 0)]


def test_a_judge_that_alternates_on_the_same_transcript_is_judge_flaky(tmp_path, monkeypatch) -> None:
    root = _run(tmp_path, monkeypatch, _alternating(), [_test("t-steady", "steady")])
    # the agent's replies are identical in every trial; verdicts pass, fail, pass
    assert _classes(root) == {"t-steady": (3, 2, False, "judge-flaky")}


def test_a_steady_agent_and_judge_are_stable_and_nothing_is_rejudged(tmp_path, monkeypatch) -> None:
    root = _run(tmp_path, monkeypatch, _by_reply, [_test("t-steady", "steady")])
    assert _classes(root) == {"t-steady": (3, 3, True, "stable")}
    assert read_records(root, "rejudgements", run_id=RUN) == []


def test_one_trial_keeps_the_single_execution_id(tmp_path, monkeypatch) -> None:
    from adat.stages.ids import execution_id

    root = _run(tmp_path, monkeypatch, _by_reply, [_test("t-steady", "steady")], repeat=1)
    (execution,) = read_records(root, "executions", run_id=RUN)
    assert execution.trial == 1 and execution.execution_id == execution_id(RUN, "t-steady", "original")
    assert ReportQueries(root).rows("test_trials", run_id=RUN) == []  # one trial: nothing to call flaky


class _TagRecorder:
    """A target that records the response-cache tag a model-backed agent would use in each session."""

    agent_id = "tags"

    def __init__(self) -> None:
        self.tags: list[str] = []

    def reset(self) -> str:
        return "s"

    def invoke(self, session_id: str, user_message: str) -> str:
        from adat.targets.trial import trial_cache_tag

        self.tags.append(trial_cache_tag())
        return "ok"


def test_a_later_trial_asks_an_llm_agent_under_its_own_cache_tag() -> None:
    from adat.stages.execution import execute_test

    target = _TagRecorder()
    first = execute_test(target, _test("t", "hello"), RUN, trial=1)
    third = execute_test(target, _test("t", "hello"), RUN, trial=3)
    assert target.tags == ["", "trial=3"]  # trial 1 keeps the cache keys a single run always had
    assert (first.trial, third.trial) == (1, 3) and first.execution_id != third.execution_id


def test_a_hosted_agent_passes_the_trial_tag_to_the_client() -> None:
    from adat.targets.hosting import HostedSessions
    from adat.targets.trial import in_trial

    class Client:
        tags: list[str] = []

        def chat(self, role: str, messages: list, *, model: str, tools: list, cache_tag: str = "") -> str:
            self.tags.append(cache_tag)
            return "reply"

    client = Client()
    host: HostedSessions[object] = HostedSessions(client, model="m", agent_id="a", prefix="p")  # type: ignore[arg-type]
    host._chat("agent", [], [])
    with in_trial(2):
        host._chat("agent", [], [])
        host._chat("agent", [], [], cache_tag="spec|rerun=1")
    assert client.tags == ["", "trial=2", "spec|rerun=1|trial=2"]
