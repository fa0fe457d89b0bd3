"""How every adat task is cached, and how long phases report progress.

Cache key = task inputs (run config, run id, the upstream step's digest, the code fingerprint)
+ the task's source. Results are persisted next to the warehouse (``<data_dir>/prefect``) so
deleting a data directory also forgets its cache; ``refresh_cache=True`` forces a recompute.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import INPUTS, TASK_SOURCE

from adat.config import RunConfig
from adat.llm.budget import phase as budget_phase
from adat.progress import terminal_progress

CACHE_POLICY = INPUTS + TASK_SOURCE


def stage_task(name: str, *, retries: int = 0) -> Callable[[Callable[..., Any]], Any]:
    """Decorator for a cached pipeline task; its LLM calls count against the budget of phase ``name``."""
    make = task(name=name, cache_policy=CACHE_POLICY, persist_result=True, retries=retries,
                retry_delay_seconds=10)
    return lambda fn: make(in_phase(name, fn))


def in_phase(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with LLM calls accounted to budget phase ``name`` (same signature and source, for caching)."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with budget_phase(name):
            return fn(*args, **kwargs)

    return run


def bind(task_obj: Any, cfg: RunConfig, *, refresh: bool = False) -> Any:
    """The task with its results stored under the run's data directory."""
    storage = Path(cfg.data_path()) / "prefect" / "results"
    storage.mkdir(parents=True, exist_ok=True)
    return task_obj.with_options(result_storage=storage, refresh_cache=refresh)


def progress(label: str) -> Callable[[int, int], None]:
    """A progress callback for the Prefect UI (a log line every 10 %) and the terminal (a bar)."""
    logger = get_run_logger()
    terminal = terminal_progress(label)
    last = {"decile": -1}

    def report(done: int, total: int) -> None:
        terminal(done, total)
        decile = int(10 * done / total) if total else 10
        if decile != last["decile"] or done == total:
            last["decile"] = decile
            logger.info("%s: %d/%d", label, done, total)

    return report
