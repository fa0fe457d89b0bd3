"""Execution: the runner sends a test's step hints to a fresh session (paper §2.1, DESIGN §4.6).

Hints are sent in order (the one conversation loop, :func:`adat.conversation.converse`, with the
hints as a scripted user) until all are sent or ``turn_limit`` user turns were sent. A target
failure is recorded on the execution (``ended_by='error'``), never raised, so one bad session
does not stop a suite.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TypeVar

from adat import conversation
from adat.conversation import ScriptedUser
from adat.records import Execution, TestCase
from adat.stages.ids import execution_id
from adat.targets.base import Target
from adat.targets.trial import in_trial

Progress = Callable[[int, int], None]
R = TypeVar("R")
T = TypeVar("T")


def execute_test(target: Target, test: TestCase, run_id: str, *, agent_variant: str = "original",
                 trial: int = 1) -> Execution:
    """Run ``test`` once against ``target`` in a fresh session and record the conversation.

    ``trial`` numbers repeated executions of the test (1..k); trial 1 keeps the id a single
    execution always had."""
    with in_trial(trial):
        conv = conversation.converse(target, ScriptedUser(list(test.step_hints)), turn_limit=test.turn_limit)
    execution = Execution(execution_id=execution_id(run_id, test.test_id, agent_variant, trial - 1),
                          run_id=run_id, test_id=test.test_id, trial=trial,
                          agent_id=str(getattr(target, "agent_id", "")), agent_variant=agent_variant,
                          session_id=conv.session_id, turns=conv.turns, ended_by=conv.ended_by, error=conv.error,
                          duration_s=conv.duration_s)
    if conv.failure is not None and not conv.session_id:
        execution.retries = conv.failure.retries  # a failed reset's own retries
    retries = getattr(target, "transport_retries", None)  # the http target counts its retries
    if callable(retries) and execution.session_id:
        execution.retries += int(retries(execution.session_id))
    return execution


def execute_tests(target: Target, tests: Sequence[TestCase], run_id: str, workers: int,
                  progress: Progress | None = None, *, agent_variant: str = "original") -> list[Execution]:
    """Execute ``tests`` concurrently (they are independent); results in the order of ``tests``.

    The target must accept concurrent sessions when ``workers > 1``; ``progress(done, total)`` is
    called from the calling thread as executions finish.
    """
    return run_tests(lambda test: execute_test(target, test, run_id, agent_variant=agent_variant), tests, workers,
                     progress)


def run_tests(fn: Callable[[T], R], tests: Sequence[T], workers: int,
              progress: Progress | None = None) -> list[R]:
    """``[fn(test) for test in tests]`` on ``workers`` threads, in the order of ``tests``.

    ``fn`` may execute a test and then judge it: each worker then runs one test's whole chain, so
    no worker waits at a barrier between executing and judging (a suite's wall time is then that
    of the tests' chains, as a plain thread pool over the same calls would take).
    """
    total = len(tests)
    if workers <= 1 or total <= 1:
        results = []
        for done, test in enumerate(tests, start=1):
            results.append(fn(test))
            if progress is not None:
                progress(done, total)
        return results
    slots: list[R | None] = [None] * total
    with ThreadPoolExecutor(max_workers=min(workers, total), thread_name_prefix="adat-exec") as pool:
        futures = {pool.submit(contextvars.copy_context().run, fn, test): i for i, test in enumerate(tests)}
        for done, future in enumerate(as_completed(futures), start=1):
            slots[futures[future]] = future.result()
            if progress is not None:
                progress(done, total)
    return [r for r in slots if r is not None]
