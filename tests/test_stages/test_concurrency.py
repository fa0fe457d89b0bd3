"""Concurrent LLM calls: the pool helper, and extraction / grounding / plain generation with
``llm.concurrency`` > 1 giving exactly the records of a one-call-at-a-time run.

The fake providers answer from the request (never from call order), sleep ~50 ms with earlier
items sleeping longer (so calls finish out of order) and record the peak number of calls in flight.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adat.config import RunConfig
from adat.llm.providers.fake import FakeOutput
from adat.llm.types import LLMError, LLMRequest
from adat.stages.concurrency import call_or_error, map_in_order
from adat.stages.statements import extract_statements, generate_plain_tests, ground_statements
from tests.test_stages.conftest import RUN, Roles, make_statement, make_trace

ITEMS = 8


class InFlight:
    """A fake provider callable: ``answer(request)`` after ``delay(request)`` seconds; counts calls in flight."""

    def __init__(self, answer: Callable[[LLMRequest], FakeOutput], delay: Callable[[LLMRequest], float]) -> None:
        self.answer = answer
        self.delay = delay
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.calls = 0

    def __call__(self, request: LLMRequest) -> FakeOutput:
        with self._lock:
            self.in_flight += 1
            self.calls += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            time.sleep(self.delay(request))
            return self.answer(request)
        finally:
            with self._lock:
                self.in_flight -= 1


def later_is_faster(index: int) -> float:
    """~50 ms; the first items take longest, so a pool finishes them last."""
    return 0.03 + 0.005 * (ITEMS - index)


def run_stage(tmp_path: Path, cfg: RunConfig, concurrency: int, role: str, fake: InFlight,
              stage: Callable[[Roles], Any]) -> Any:
    roles = Roles(tmp_path / f"c{concurrency}", cfg)
    roles.cfg.llm.concurrency = concurrency
    roles.script(role, fake)
    return stage(roles)


def run_serial_and_pooled(tmp_path: Path, cfg: RunConfig, concurrency: int, role: str, serial_fake: InFlight,
                          pooled_fake: InFlight, stage: Callable[[Roles], Any]) -> Any:
    """Run ``stage`` at concurrency 1 and at ``concurrency``; the outputs must be equal, the
    sequential run never overlaps calls and the pooled one overlaps them within the limit."""
    serial = run_stage(tmp_path, cfg, 1, role, serial_fake, stage)
    pooled = run_stage(tmp_path, cfg, concurrency, role, pooled_fake, stage)
    assert pooled == serial
    assert serial_fake.peak == 1 and serial_fake.calls == pooled_fake.calls == ITEMS
    assert 1 < pooled_fake.peak <= concurrency
    return serial


def dumps(records: list[Any]) -> list[dict[str, Any]]:
    return [r.model_dump() for r in records]


# --- the pool helper -------------------------------------------------------------------------
def test_map_in_order_keeps_input_order_when_calls_finish_out_of_order() -> None:
    def slow_first(i: int) -> int:
        time.sleep(0.01 * (5 - i))
        return i * i

    assert map_in_order(slow_first, list(range(5)), 5) == [0, 1, 4, 9, 16]


def test_map_in_order_with_one_worker_runs_in_the_calling_thread() -> None:
    threads = map_in_order(lambda _: threading.current_thread(), [1, 2, 3], 1)
    assert threads == [threading.current_thread()] * 3


def test_map_in_order_raises_the_earliest_failure_and_cancels_calls_not_started() -> None:
    called: list[int] = []

    def fn(i: int) -> int:
        called.append(i)
        if i == 1:
            time.sleep(0.05)
            raise ValueError("item 1")
        if i == 2:
            raise ValueError("item 2")  # fails first in time, but item 1 comes first in order
        time.sleep(0.05)
        return i

    with pytest.raises(ValueError, match="item 1"):
        map_in_order(fn, list(range(40)), 2)
    assert len(called) < 10  # the pending calls were cancelled, not all run


def test_map_in_order_runs_each_call_in_the_callers_context() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    var.set("caller")
    assert map_in_order(lambda _: var.get(), [1, 2, 3], 3) == ["caller"] * 3


def test_map_in_order_rejects_no_workers_and_call_or_error_returns_llm_errors() -> None:
    with pytest.raises(ValueError, match="max_workers"):
        map_in_order(str, [1], 0)
    error = LLMError("down")

    def fail(_: int) -> int:
        raise error

    assert call_or_error(fail)(1) is error
    with pytest.raises(KeyError):  # anything but an LLMError still raises
        call_or_error({0: 0}.__getitem__)(1)


# --- the stages ------------------------------------------------------------------------------
@pytest.mark.parametrize("concurrency", [2, 5])
def test_extraction_is_concurrent_and_gives_the_sequential_statements(tmp_path: Path, cfg: RunConfig,
                                                                      concurrency: int) -> None:
    traces = [make_trace(f"tr-{i:02d}", "q", f"Reply {i}.", "more", f"Reply {i}b.") for i in range(ITEMS)]

    def answer(request: LLMRequest) -> FakeOutput:
        i = int(request.variables["trace"]["trace_id"][3:])
        if i == 3:
            return LLMError("down")
        statements = [{"text": f"Rule {i}.", "condition": "c", "behavior": "b", "supporting_turn": 1},
                      {"text": "Shared rule.", "condition": "c", "behavior": "b", "supporting_turn": 3},
                      {"text": "bad", "condition": "c", "behavior": "b", "supporting_turn": 0}]
        return {"statements": statements}

    def delay(request: LLMRequest) -> float:
        return later_is_faster(int(request.variables["trace"]["trace_id"][3:]))

    def stage(roles: Roles) -> tuple[list[dict[str, Any]], Counter[str]]:
        counts: Counter[str] = Counter()
        got = extract_statements(roles.cfg, roles.client(), traces, RUN, counts=counts)
        return dumps(got), counts

    serial = run_serial_and_pooled(tmp_path, cfg, concurrency, "extractor", InFlight(answer, delay),
                                   InFlight(answer, delay), stage)
    statements, counts = serial
    assert [s["extraction_order"] for s in statements] == list(range(len(statements)))
    assert [s["text"] for s in statements[:3]] == ["Rule 0.", "Shared rule.", "Rule 1."]
    assert statements[1]["supporting_trace_id"] == "tr-00"  # the duplicate kept is the first trace's
    assert counts == Counter(extractor_error=1, duplicate=ITEMS - 2, invalid_supporting_turn=ITEMS - 1)


@pytest.mark.parametrize("concurrency", [2, 5])
def test_grounding_is_concurrent_and_gives_the_sequential_ranking(tmp_path: Path, cfg: RunConfig,
                                                                 concurrency: int) -> None:
    statements = [make_statement(f"s{i:02d}", i) for i in range(2 * ITEMS)]

    def index_of(candidate: dict[str, Any]) -> int:
        return int(candidate["text"].removeprefix("statement s"))

    def answer(request: LLMRequest) -> FakeOutput:
        batch = request.variables["statements"]
        if index_of(batch[0]) == 6:
            return LLMError("down")
        # few distinct confidences, so ranking leans on the extraction-order tie-break
        return {"items": [{"index": c["index"], "grounded": index_of(c) % 5 != 4,
                           "confidence": [0.5, 0.9, 0.5][index_of(c) % 3], "reason": ""}
                          for c in batch if index_of(c) != 9]}

    def delay(request: LLMRequest) -> float:
        return later_is_faster(index_of(request.variables["statements"][0]) // 2)

    def stage(roles: Roles) -> tuple[list[dict[str, Any]], Counter[str]]:
        roles.cfg.statements.grounding_batch_size = 2
        counts: Counter[str] = Counter()
        got = ground_statements(roles.cfg, roles.client(), statements, counts=counts)
        return dumps(got), counts

    serial = run_serial_and_pooled(tmp_path, cfg, concurrency, "grounder", InFlight(answer, delay),
                                   InFlight(answer, delay), stage)
    judged, counts = serial
    ranked = [s["statement_id"] for s in judged if s["rank"] is not None]
    assert ranked[:3] == ["s01", "s10", "s13"]  # confidence 0.9 (s04 ungrounded, s07 failed), ties in extraction order
    assert [s["rank"] for s in judged[:len(ranked)]] == list(range(1, len(ranked) + 1))
    assert counts == Counter(grounder_error=2, grounder_missing=1)


@pytest.mark.parametrize("concurrency", [2, 5])
def test_plain_generation_is_concurrent_and_gives_the_sequential_tests(tmp_path: Path, cfg: RunConfig,
                                                                       concurrency: int) -> None:
    trace = make_trace("tr-1", "cancel #1", "Only pending orders can be cancelled.")
    # ranks reversed against extraction order: output order must follow rank
    statements = [make_statement(f"s{i:02d}", i, rank=ITEMS - i) for i in range(ITEMS)]

    def answer(request: LLMRequest) -> FakeOutput:
        sid = request.variables["statement"]["statement_id"]
        if sid == "s05":
            return LLMError("down")
        return {"goal": f"goal for {sid}", "step_hints": [f"hint for {sid}"], "success_criteria": ["ok"],
                "failure_criteria": ["not ok"], "expected_side": "denied", "assumed_facts": []}

    def delay(request: LLMRequest) -> float:
        return later_is_faster(ITEMS - int(request.variables["statement"]["statement_id"][1:]))

    def stage(roles: Roles) -> tuple[list[dict[str, Any]], list[Any]]:
        roles.cfg.generation.n = ITEMS
        tests, failures = generate_plain_tests(roles.cfg, roles.client(), statements, [trace], RUN)
        return dumps(tests), failures

    serial = run_serial_and_pooled(tmp_path, cfg, concurrency, "generator", InFlight(answer, delay),
                                   InFlight(answer, delay), stage)
    tests, failures = serial
    assert [t["statement_id"] for t in tests] == [f"s{i:02d}" for i in reversed(range(ITEMS)) if i != 5]
    assert [f.statement_id for f in failures] == ["s05"]
