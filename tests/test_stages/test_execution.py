"""Execution: fresh session, hints in order, turn limit, target errors recorded, ordered results."""

from __future__ import annotations

import random
import threading
import time

from adat.errors import TargetError
from adat.stages.concurrency import map_in_order
from adat.stages.execution import execute_test
from adat.stages.ids import execution_id
from tests.test_stages.conftest import RUN, ScriptedTarget, make_test


def test_hints_are_sent_in_order_in_a_fresh_session() -> None:
    target = ScriptedTarget({"cancel": "Only pending orders can be cancelled."}, default="Sure.")
    ex = execute_test(target, make_test("t1", ["hi", "cancel #1"]), RUN)
    assert target.received == [("s1", "hi"), ("s1", "cancel #1")]
    assert [(t.role, t.text) for t in ex.turns] == [("user", "hi"), ("agent", "Sure."), ("user", "cancel #1"),
                                                     ("agent", "Only pending orders can be cancelled.")]
    assert ex.ended_by == "hints_done" and ex.error is None and ex.session_id == "s1"
    assert ex.agent_id == "scripted" and ex.agent_variant == "original"
    assert ex.execution_id == execution_id(RUN, "t1")
    execute_test(target, make_test("t1", ["again"]), RUN)
    assert target.received[-1] == ("s2", "again")


def test_turn_limit_stops_sending() -> None:
    target = ScriptedTarget()
    ex = execute_test(target, make_test("t1", ["a", "b", "c"], turn_limit=2), RUN, agent_variant="fault-1")
    assert [m for _, m in target.received] == ["a", "b"]
    assert ex.ended_by == "turn_limit" and ex.agent_variant == "fault-1"
    assert ex.execution_id == execution_id(RUN, "t1", "fault-1") != execution_id(RUN, "t1")


def test_target_errors_are_recorded_not_raised() -> None:
    ex = execute_test(ScriptedTarget({"b": TargetError("timeout after 60 s")}), make_test("t", ["a", "b", "c"]), RUN)
    assert ex.ended_by == "error" and ex.error == "timeout after 60 s"
    assert [t.text for t in ex.turns] == ["a", "OK.", "b"]
    ex = execute_test(ScriptedTarget(fail_reset=True), make_test("t", ["a"]), RUN)
    assert ex.ended_by == "error" and ex.error == "connection refused" and ex.turns == []


class SlowTarget(ScriptedTarget):
    """Answers after a random delay, so concurrent executions finish out of order."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.rng = random.Random(1)

    def reset(self) -> str:
        with self.lock:
            return super().reset()

    def invoke(self, session_id: str, user_message: str) -> str:
        with self.lock:
            delay = self.rng.uniform(0, 0.02)
        time.sleep(delay)
        return f"echo {user_message}"


def test_concurrent_results_keep_the_order_of_the_tests() -> None:
    tests = [make_test(f"t{i}", [f"m{i}"]) for i in range(12)]
    progress: list[tuple[int, int]] = []
    target = SlowTarget()
    got = map_in_order(lambda test: execute_test(target, test, RUN), tests, 4,
                       progress=lambda d, t: progress.append((d, t)))
    assert [e.test_id for e in got] == [t.test_id for t in tests]
    assert [e.turns[1].text for e in got] == [f"echo m{i}" for i in range(12)]
    assert progress == [(d, 12) for d in range(1, 13)]
    serial_target = SlowTarget()
    serial = map_in_order(lambda test: execute_test(serial_target, test, RUN), tests, 1)
    assert [e.execution_id for e in serial] == [e.execution_id for e in got]
