"""The transformation loop with the real AdaT2 selector: n/a, generator errors, verdicts, resume."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adat.config import with_selector
from adat.errors import UserError
from adat.llm.types import LLMError, LLMRequest
from adat.records import Instruction
from adat.selection import Pair, make_selector
from adat.stages.ids import transformed_test_id
from adat.stages.transformation import AttemptOutcome, transform
from tests.test_stages.conftest import RUN, Roles, ScriptedTarget, make_statement, make_test, make_trace

GENERATED = {"goal": "g", "step_hints": ["cancel order #1"], "success_criteria": ["agent refuses"],
             "failure_criteria": ["agent cancels"], "expected_side": "denied", "assumed_facts": []}


def instructions() -> list[Instruction]:
    return [Instruction(instruction_id=k, title=f"title {k}", text=f"do {k}", factor="value",
                        applicability="always", prior_applicability=p)
            for k, p in (("k-ok", 0.5), ("k-na", 0.6), ("k-err", 0.4))]


def generator(request: LLMRequest) -> Any:
    """k-ok writes a test, k-na is not applicable, k-err fails for good."""
    kid = request.variables["instruction"]["instruction_id"]
    if kid == "k-err":
        return LLMError("generator down")
    if kid == "k-na":
        return {"applicable": False, "reason": "no numeric input", "test": None}
    return {"applicable": True, "reason": "moves to the other side", "test": GENERATED}


def judge(request: LLMRequest) -> Any:
    return {"verdict": "pass", "rationale": "refused", "criteria": [
        {"criterion": "agent refuses", "kind": "success", "holds": True, "rationale": ""},
        {"criterion": "agent cancels", "kind": "failure", "holds": False, "rationale": ""}]}


class Setup:
    def __init__(self, roles: Roles, n: int = 3) -> None:
        roles.cfg.generation.n = n
        roles.cfg.generation.recent_tests = 2
        roles.cfg.selector.block_size = 2
        self.roles = roles
        self.statements = [make_statement(f"s{i}", i, rank=i + 1) for i in range(4)]
        self.plain = [make_test("p0", ["plain 0"], statement_id="s0"), make_test("p1", ["plain 1"], statement_id="s1")]
        self.traces = [make_trace("tr-1", "cancel #1", "Only pending orders can be cancelled.")]
        self.instructions = instructions()
        rng = np.random.default_rng(0)
        emb = rng.normal(size=(4, 8))
        self.embeddings = emb / np.linalg.norm(emb, axis=1, keepdims=True)
        self.gen = roles.script("generator", generator)
        self.judge = roles.script("judge", judge)
        self.target = ScriptedTarget({"cancel": "Only pending orders can be cancelled."})

    def selector(self) -> Any:
        return make_selector(self.roles.cfg.selector, self.statements, self.instructions, self.embeddings,
                             self.roles.cfg.generation.n, seed=7)

    def run(self, selector: Any = None, **kw: Any) -> Any:
        done = transform(self.roles.cfg, self.roles.client(), selector or self.selector(), self.target,
                         self.statements, self.plain, self.traces, self.instructions, RUN, **kw)
        return ([o.test for o in done if o.test], [o.attempt for o in done],
                [o.execution for o in done if o.execution], [o.verdict for o in done if o.verdict])


def test_loop_records_every_outcome_and_feeds_the_selector(roles: Roles) -> None:
    roles.cfg.selector = with_selector(roles.cfg.selector, "adat2")  # the paper's selector tries every arm; pooled drops k-err sooner
    s = Setup(roles)
    selector = s.selector()
    seen: list[AttemptOutcome] = []
    counts: Counter[str] = Counter()
    progress: list[tuple[int, int]] = []
    tests, attempts, executions, verdicts = s.run(selector, on_attempt=seen.append, counts=counts,
                                                  progress=lambda d, t: progress.append((d, t)))

    assert selector.stop_reason() == "target" and len(tests) == 3
    assert [a.attempt_no for a in attempts] == list(range(1, len(attempts) + 1))
    assert len(seen) == len(attempts) and progress[-1] == (len(attempts), 18)
    by_k = {k: [a for a in attempts if a.instruction_id == k] for k in ("k-ok", "k-na", "k-err")}
    assert by_k["k-na"] and by_k["k-err"]  # the learning selector still tried them
    assert all(not a.applicable and a.reason == "no numeric input" and a.test_id is None and a.reward is None
               for a in by_k["k-na"])
    assert all(not a.applicable and a.outcome == "error" and a.reason.startswith("generator error:")
               for a in by_k["k-err"])
    assert all(a.outcome == "not_applicable" for a in by_k["k-na"])
    assert all(a.generator == "fake/generator" and a.target_id == s.target.agent_id for a in attempts)
    assert counts["generator_error"] == len(by_k["k-err"]) and counts["not_applicable"] == len(by_k["k-na"])
    assert all(a.applicable and a.verdict == "pass" and a.reward == 1.0 for a in by_k["k-ok"])
    assert all(a.selector == "adat2" and a.scores_json.startswith("{") for a in attempts)

    # tests: transformed, executed at once in a fresh session each, judged, ids per pair
    assert [t.test_id for t in tests] == [a.test_id for a in by_k["k-ok"]]
    for test, attempt in zip(tests, by_k["k-ok"], strict=True):
        assert test.kind == "transformed" and test.instruction_id == "k-ok"
        assert test.test_id == transformed_test_id(RUN, attempt.statement_id, "k-ok")
        assert test.produced_by == "fake/generator" and test.prompt_id == "generate_transformed"
    assert [e.test_id for e in executions] == [t.test_id for t in tests]
    assert s.target.sessions == 3 and [v.verdict for v in verdicts] == ["pass"] * 3

    # what the generator saw: its statement's plain test, the traces, the most recent tests
    first = s.gen.requests[0].variables
    assert first["discovery_traces"][0]["trace_id"] == "tr-1" and first["supporting_reply"].startswith("Only")
    for request in s.gen.requests:
        sid = request.variables["statement"]["statement_id"]
        plain = request.variables["plain_test"]
        assert (plain["test_id"] if plain else None) == {"s0": "p0", "s1": "p1"}.get(sid)
    assert [t["test_id"] for t in first["recent_tests"]] == ["p0", "p1"]
    last = s.gen.requests[-1].variables
    assert [t["test_id"] for t in last["recent_tests"]] == [t.test_id for t in tests[:2]]


def test_resume_replays_done_attempts_and_continues_identically(roles: Roles) -> None:
    s = Setup(roles)
    tests, attempts, _, _ = s.run()
    assert len(attempts) >= 4
    calls_full = len(s.gen.requests)

    cut = 3
    done = attempts[:cut]
    done_tests = [t for t in tests if t.test_id in {a.test_id for a in done}]
    calls_before = len(s.gen.requests)
    tests2, attempts2, _, _ = s.run(done_attempts=list(reversed(done)), done_tests=list(reversed(done_tests)))
    resumed = s.gen.requests[calls_before].variables["recent_tests"]
    assert [t["test_id"] for t in resumed] == [t.test_id for t in [*s.plain, *done_tests][-2:]]
    assert [a.model_dump() for a in attempts2] == [a.model_dump() for a in attempts[cut:]]
    assert [t.test_id for t in tests2] == [t.test_id for t in tests if t not in done_tests]
    assert len(s.gen.requests) - calls_full == len(attempts) - cut  # no generator call for replayed ones


def test_resume_with_attempts_the_selector_would_not_make_is_refused(roles: Roles) -> None:
    s = Setup(roles)
    _, attempts, _, _ = s.run()
    wrong = attempts[0].model_copy(update={"statement_id": "s-unknown"})
    with pytest.raises(UserError, match="cannot resume"):
        s.run(done_attempts=[wrong])


def test_custom_execute_and_judge_functions_are_used(roles: Roles) -> None:
    s = Setup(roles, n=1)
    executed: list[str] = []

    def execute(test: Any) -> Any:
        from adat.stages.execution import execute_test
        executed.append(test.test_id)
        return execute_test(s.target, test, RUN, agent_variant="custom")

    def fail_judge(test: Any, ex: Any) -> Any:
        from adat.records import Verdict
        return Verdict(run_id=RUN, execution_id=ex.execution_id, test_id=test.test_id, verdict="fail")

    tests, attempts, executions, verdicts = s.run(execute_fn=execute, judge_fn=fail_judge)
    assert executed == [t.test_id for t in tests] and executions[0].agent_variant == "custom"
    written = [a for a in attempts if a.applicable]
    assert [(a.verdict, a.reward) for a in written] == [("fail", 0.0)]
    assert s.judge.requests == []



class ScriptedSelector:
    """Hands out fixed pairs and records the updates (the loop depends only on the protocol)."""

    name = "scripted"

    def __init__(self, pairs: list[Pair]) -> None:
        self.pairs = list(pairs)
        self.updates: list[tuple[str, bool, str | None]] = []
        self.errors: list[bool] = []
        self.reasons: list[str | None] = []

    def next_pair(self) -> Pair | None:
        return self.pairs.pop(0) if self.pairs else None

    def update(self, pair: Pair, *, applicable: bool, verdict: str | None, error: bool = False,
               reason: str | None = None) -> None:
        self.updates.append((pair.instruction_id, applicable, verdict))
        self.errors.append(error)
        self.reasons.append(reason)

    def stop_reason(self) -> str | None:
        return None if self.pairs else "budget"


def test_the_kind_of_a_declined_pairs_reason_reaches_the_selector(roles: Roles) -> None:
    s = Setup(roles)
    roles.script("generator", [{"applicable": False, "reason": "Statement: it names no amount", "test": None},
                               {"applicable": False, "reason": "instruction: needs a second user", "test": None},
                               {"applicable": False, "reason": "no fitting step", "test": None},
                               {"applicable": True, "reason": "statement: fits", "test": GENERATED}])
    scripted = ScriptedSelector([Pair(i, f"s{i - 1}", "k-na", 0, 1) for i in range(1, 5)])
    s.run(scripted)
    assert scripted.reasons == ["statement", "instruction", None, None]
    prompt = (Path(__file__).resolve().parents[2] / "catalogs" / "prompts" / "generate_transformed.yaml").read_text()
    assert '"reason": "<kind>: <why>"' in prompt


def test_applicable_without_a_test_counts_as_not_applicable(roles: Roles) -> None:
    s = Setup(roles)
    roles.script("generator", [{"applicable": True, "reason": "sure", "test": None},
                               {"applicable": True, "reason": "ok", "test": GENERATED}])
    selector = ScriptedSelector([Pair(1, "s2", "k-ok", 1, 1, {"x": 1}), Pair(2, "s3", "k-na", 1, 1)])
    tests, attempts, _, _ = s.run(selector)
    assert selector.updates == [("k-ok", False, None), ("k-na", True, "pass")]
    assert attempts[0].reason == "applicable but no test was written (sure)" and not attempts[0].applicable
    assert attempts[0].scores_json == '{"x": 1}' and attempts[1].block == 1
    assert [t.statement_id for t in tests] == ["s3"]
    # s2 and s3 have no plain test
    assert roles.fakes["generator"].requests[0].variables["plain_test"] is None


def test_a_generator_error_teaches_the_selector_nothing(roles: Roles) -> None:
    """Through the real loop: the error attempt is reported as an error, θ/μ and m stay as they were."""
    roles.cfg.selector = with_selector(roles.cfg.selector, "adat2")  # its θ posteriors (pooled's: tests/test_selection/test_pooled.py)
    s = Setup(roles)
    roles.cfg.selector.max_not_applicable = 1
    selector = s.selector()
    theta_before = (selector.theta.a.copy(), selector.theta.b.copy())
    roles.script("generator", [LLMError("generator down")])
    scripted = ScriptedSelector([Pair(1, "s0", "k-ok", 0, 1)])
    _, attempts, _, _ = s.run(scripted)
    assert scripted.errors == [True] and scripted.updates == [("k-ok", False, None)]
    assert attempts[0].outcome == "error" and attempts[0].reward is None
    # the same attempt replayed into the real AdaT2 selector moves nothing
    pair = selector.next_pair()
    assert pair is not None
    error_row = attempts[0].model_copy(update={"statement_id": pair.statement_id, "instruction_id": pair.instruction_id})
    from adat.stages.transformation import replay_attempts
    fresh = s.selector()
    replay_attempts(fresh, [error_row])
    h = fresh.statement_ids.index(pair.statement_id)
    assert (fresh.theta.a == theta_before[0]).all() and (fresh.theta.b == theta_before[1]).all()
    assert fresh.na_in_pass[h] == 0 and not fresh.set_aside[h] and fresh.errors == 1


def test_a_target_error_writes_the_test_but_gives_no_reward(roles: Roles) -> None:
    s = Setup(roles, n=1)

    def broken(test: Any) -> Any:
        from adat.records import Execution
        return Execution(execution_id=f"e-{test.test_id}", run_id=RUN, test_id=test.test_id, agent_id="x",
                         ended_by="error", error="target down")

    roles.script("generator", [{"applicable": True, "reason": "ok", "test": GENERATED}])
    scripted = ScriptedSelector([Pair(1, "s0", "k-ok", 0, 1)])
    _, attempts, _, verdicts = s.run(scripted, execute_fn=broken)
    assert attempts[0].outcome == "applicable" and attempts[0].reward is None and verdicts
    assert scripted.updates == [("k-ok", True, None)] and scripted.errors == [False]


def test_the_generator_is_told_which_side_a_statement_still_lacks(roles: Roles) -> None:
    # Both sides of a boundary (issue 11, item 4): a statement whose plain test expects one side
    # is sent with the other as its aim; one with no test yet with none.
    s = Setup(roles)
    s.plain = [make_test("p0", ["plain 0"], statement_id="s0").model_copy(update={"expected_side": "allowed"}),
               make_test("p1", ["plain 1"], statement_id="s1")]
    s.run()
    sent = {r.variables["statement"]["statement_id"]: r.variables for r in s.gen.requests}
    assert sent["s0"]["covered_sides"] == ["allowed"] and sent["s0"]["aim_side"] == "denied"
    assert all(v["aim_side"] is None for sid, v in sent.items() if sid != "s0")
    prompt = (Path(__file__).resolve().parents[2] / "catalogs" / "prompts" / "generate_transformed.yaml").read_text()
    assert "{{ aim_side }}" in prompt and "Both sides of a boundary" in prompt


@pytest.mark.parametrize(("both_sides", "first"), [(3.0, "k-value"), (0.0, "k-wording")])
def test_the_selector_prefers_an_instruction_that_can_reach_the_missing_side(
        roles: Roles, both_sides: float, first: str) -> None:
    s = Setup(roles, n=1)
    roles.cfg.selector.both_sides = both_sides
    s.statements = s.statements[:1]
    s.embeddings = s.embeddings[:1]
    s.plain = [make_test("p0", ["plain 0"], statement_id="s0").model_copy(update={"expected_side": "denied"})]
    s.instructions = [Instruction(instruction_id="k-wording", title="reword", text="reword", factor="wording",
                                  applicability="always", prior_applicability=0.9),
                      Instruction(instruction_id="k-value", title="another value", text="change a value",
                                  factor="value", applicability="always", prior_applicability=0.35)]
    s.gen = roles.script("generator", lambda request: {"applicable": True, "reason": "r", "test": GENERATED})
    _, attempts, _, _ = s.run()
    assert attempts[0].instruction_id == first


@pytest.mark.parametrize(("repeat_gamma", "varied_used"), [(1.0, False), (0.5, True)])
def test_an_instruction_whose_tests_keep_expecting_one_outcome_gives_way(
        roles: Roles, repeat_gamma: float, varied_used: bool) -> None:
    # k-same (likelier) writes the same expected outcome on every statement, k-varied a new one
    # each time: the stage counts k-same's repeats for the selector, which penalises them.
    s = Setup(roles, n=3)
    roles.cfg.selector.both_sides = 0.0
    roles.cfg.selector.repeat_gamma = repeat_gamma  # type: ignore[union-attr]
    s.instructions = [Instruction(instruction_id="k-same", title="decline", text="decline", factor="identity",
                                  applicability="always", prior_applicability=0.9),
                      Instruction(instruction_id="k-varied", title="another value", text="change a value",
                                  factor="value", applicability="always", prior_applicability=0.7)]

    def generate(request: LLMRequest) -> Any:
        sid = request.variables["statement"]["statement_id"]
        same = request.variables["instruction"]["instruction_id"] == "k-same"
        return {"applicable": True, "reason": "r",
                "test": {**GENERATED, "success_criteria": ["agent asks who you are" if same else f"agent answers {sid}"]}}

    s.gen = roles.script("generator", generate)
    selector = s.selector()
    _, attempts, _, _ = s.run(selector)
    used = [a.instruction_id for a in attempts if a.applicable]
    assert len(used) == 3 and used[0] == "k-same"
    assert ("k-varied" in used) is varied_used, used
    assert selector.repeated(np.array([0]))[0] == used.count("k-same") - 1  # the stage's count, as the selector sees it
