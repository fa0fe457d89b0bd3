"""The direct baseline: batches of tests from all traces, and each way it stops."""

from __future__ import annotations

import json

from adat.baselines.direct import direct_test_id, generate_direct_tests
from adat.config import RunConfig
from adat.llm.types import LLMRequest
from adat.records import Trace
from tests.test_stages.conftest import RUN, Roles


def gen(i: int) -> dict[str, object]:
    return {"goal": f"goal {i}", "step_hints": [f"hint {i}", "yes"], "success_criteria": [f"refuses {i}"],
            "failure_criteria": [], "expected_side": "denied", "assumed_facts": []}


def batch(*numbers: int, exhausted: bool = False) -> dict[str, object]:
    return {"tests": [gen(i) for i in numbers], "exhausted": exhausted}


def with_budget(roles: Roles, *, n: int, batch_size: int) -> None:
    roles.cfg.generation.n = n
    roles.cfg.baselines.direct_batch_size = batch_size


def test_stops_when_the_generator_says_the_traces_are_exhausted(roles: Roles, traces: list[Trace]) -> None:
    with_budget(roles, n=10, batch_size=2)
    fake = roles.script("generator", [batch(1, 2), batch(3, exhausted=True)])
    result = generate_direct_tests(roles.cfg, roles.client(), traces, RUN)
    assert result.stop_reason == "exhausted" and result.batches == 2
    assert [t.goal for t in result.tests] == ["goal 1", "goal 2", "goal 3"]
    assert [t.test_id for t in result.tests] == [direct_test_id(RUN, i) for i in (1, 2, 3)]
    assert {t.kind for t in result.tests} == {"direct"}
    assert all(t.prompt_id == "generate_direct" and t.produced_by == "fake/generator" for t in result.tests)
    second = fake.requests[1].variables
    assert [t["goal"] for t in second["existing_tests"]] == ["goal 1", "goal 2"]
    assert len(second["discovery_traces"]) == len(traces)  # every trace, every time


def test_stops_at_the_limit_and_asks_only_for_what_is_left(roles: Roles, traces: list[Trace]) -> None:
    with_budget(roles, n=3, batch_size=2)
    fake = roles.script("generator", [batch(1, 2), batch(3, 4)])  # the second batch overshoots
    result = generate_direct_tests(roles.cfg, roles.client(), traces, RUN)
    assert result.stop_reason == "limit" and len(result.tests) == 3
    assert [r.variables["max_tests"] for r in fake.requests] == [2, 1]


def test_direct_max_tests_overrides_n(roles: Roles, traces: list[Trace]) -> None:
    with_budget(roles, n=50, batch_size=5)
    roles.cfg.baselines.direct_max_tests = 1
    roles.script("generator", [batch(1, 2)])
    result = generate_direct_tests(roles.cfg, roles.client(), traces, RUN)
    assert result.stop_reason == "limit" and [t.goal for t in result.tests] == ["goal 1"]


def test_a_batch_without_new_tests_stops_a_generator_that_never_says_exhausted(
        roles: Roles, traces: list[Trace]) -> None:
    with_budget(roles, n=10, batch_size=3)
    roles.script("generator", [batch(1, 2), batch(1, 2)])
    result = generate_direct_tests(roles.cfg, roles.client(), traces, RUN)
    assert result.stop_reason == "no_progress" and len(result.tests) == 2 and result.duplicates == 2


def test_a_generator_failure_keeps_the_tests_written_so_far(roles: Roles, traces: list[Trace]) -> None:
    with_budget(roles, n=10, batch_size=2)
    roles.script("generator", [batch(1, 2), "not json", "still not json"])
    result = generate_direct_tests(roles.cfg, roles.client(), traces, RUN)
    assert result.stop_reason == "generator_error" and len(result.tests) == 2 and result.errors


def test_step_hints_are_cut_to_the_turn_limit(roles: Roles, traces: list[Trace]) -> None:
    with_budget(roles, n=5, batch_size=5)
    roles.cfg.generation.turn_limit = 1
    roles.script("generator", [batch(1, exhausted=True)])
    result = generate_direct_tests(roles.cfg, roles.client(), traces, RUN)
    assert result.tests[0].step_hints == ["hint 1"] and result.tests[0].turn_limit == 1


def test_the_prompt_fences_the_traces(roles: Roles, traces: list[Trace]) -> None:
    fake = roles.script("generator", lambda request: batch(exhausted=True))
    generate_direct_tests(roles.cfg, roles.client(), traces, RUN)
    request: LLMRequest = fake.requests[0]
    user = request.messages[-1]["content"]
    assert '<data label="all discovery traces" untrusted="true">' in user
    assert json.loads(json.dumps(request.variables))["max_tests"] == RunConfig().baselines.direct_batch_size
