"""Independent calls of one stage, run a few at a time, results in input order.

Extraction (one call per trace), grounding (one per batch), plain generation (one per
statement) and judging (one per execution) make LLM calls that do not depend on each other;
against a real endpoint each takes seconds, so they run in a thread pool bounded by
``cfg.llm.concurrency`` (a suite's executions, by ``execution.workers``). Only the calls go to the
pool: every stage assembles its records in the calling thread, in input order, so ids, orders,
ranks and counts are those of a sequential run.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import TypeVar

from adat.llm.types import LLMError

T = TypeVar("T")
R = TypeVar("R")


def map_in_order(fn: Callable[[T], R], items: Sequence[T], max_workers: int, *,
                 name: str = "adat-llm", progress: Callable[[int, int], None] | None = None) -> list[R]:
    """``[fn(item) for item in items]`` with at most ``max_workers`` calls running at once.

    Results come back in the order of ``items`` whatever order the calls finish in;
    ``progress(done, total)`` is called from the calling thread as calls finish. With one
    worker (or one item) nothing is threaded. If a call raises, the calls not yet started are
    cancelled and the exception of the earliest failing item is re-raised, as the sequential
    loop would have raised it (calls already running are waited for, not interrupted).
    Each call runs in a copy of the caller's context, so context-bound state (e.g. a Prefect
    run logger) is visible in the worker threads.
    """
    if max_workers < 1:
        raise ValueError(f"max_workers must be >= 1, got {max_workers}")
    total = len(items)
    if max_workers == 1 or total <= 1:
        results = []
        for done, item in enumerate(items, start=1):
            results.append(fn(item))
            if progress is not None:
                progress(done, total)
        return results
    with ThreadPoolExecutor(max_workers=min(max_workers, total), thread_name_prefix=name) as pool:
        # One context copy per call: a Context cannot be entered by two threads at once.
        futures: list[Future[R]] = [pool.submit(contextvars.copy_context().run, fn, item) for item in items]
        try:
            for done, future in enumerate(as_completed(futures), start=1):
                if future.exception() is not None:
                    break  # raised below, from the earliest failing item in input order
                if progress is not None:
                    progress(done, total)
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def call_or_error(fn: Callable[[T], R]) -> Callable[[T], R | LLMError]:
    """``fn`` returning the :class:`LLMError` it raises instead of raising it.

    The stages handle a failed call per item (count it, log it, skip the item); returning the
    error lets them do that in the calling thread, in input order, after the pool is done.
    """
    def wrapped(item: T) -> R | LLMError:
        try:
            return fn(item)
        except LLMError as exc:
            return exc

    return wrapped
