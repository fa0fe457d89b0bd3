"""How every adat task is cached, and how long phases report progress.

Cache key = :func:`adat.pipeline.fingerprint.stage_key` (the stage's own code, prompts and
instruction catalog, the target's artifacts, the result-changing config fields, run id and the
upstream steps' digests) + the task wrapper's source. Results are persisted next to the
warehouse (``<data_dir>/prefect``) so deleting a data directory also forgets its cache;
``refresh_cache=True`` forces a recompute.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import TASK_SOURCE, CacheKeyFnPolicy

from adat.config import ExecutionConfig, RunConfig
from adat.errors import TargetError, UserError
from adat.llm.budget import phase as budget_phase
from adat.llm.types import LLMError, TransientProviderError
from adat.pipeline.fingerprint import stage_key
from adat.pipeline.stages import refreshes, stage
from adat.progress import terminal_progress


class StageKey:
    """``cache_key_fn`` of stage ``name`` (a class, not a lambda: tasks are pickled to worker processes)."""

    def __init__(self, name: str) -> None:
        stage(name)  # fail at import for a stage missing from the registry
        self.name = name

    def __call__(self, _context: Any, inputs: dict[str, Any]) -> str:
        return stage_key(self.name, inputs)


def cache_policy(name: str) -> Any:
    """The cache policy of stage ``name`` (see the module docstring)."""
    return TASK_SOURCE + CacheKeyFnPolicy(cache_key_fn=StageKey(name))


def in_phase(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with LLM calls accounted to budget phase ``name`` (same signature and source, for caching)."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with budget_phase(name):
            return fn(*args, **kwargs)

    return run


#: failures worth a retry: the target or the LLM endpoint (network, timeouts, 5xx after the client's own retries)
TRANSIENT = (TargetError, LLMError, TransientProviderError, OSError)


def retry_transient(_task: Any, _task_run: Any, state: Any) -> bool:
    """Prefect ``retry_condition_fn``: retry I/O failures, never a user error or a bug."""
    try:
        state.result()
    except TRANSIENT as exc:
        return not isinstance(exc, UserError)
    except BaseException:
        return False
    return False


#: the retries a stage task is declared with; :func:`bind` sets the run's ``execution.task_retries``
DEFAULT_RETRIES = ExecutionConfig.model_fields["task_retries"].default


def stage_task(name: str) -> Callable[[Callable[..., Any]], Any]:
    """Decorator for a cached pipeline task; its LLM calls count against the budget of phase ``name``.
    Stages that call the target or an LLM (the stage registry says which) retry on a transient
    failure (``execution.task_retries`` times, set by :func:`bind`), visible as retries in the
    Prefect UI; a resumable stage (transformation) continues where the failed try stopped."""
    spec = stage(name)
    io_bound = spec.uses_target or bool(spec.prompts)
    make = task(name=name, cache_policy=cache_policy(name), persist_result=True, retries=DEFAULT_RETRIES if io_bound else 0,
                retry_delay_seconds=[5, 30], retry_condition_fn=retry_transient if io_bound else None)
    return lambda fn: make(in_phase(name, fn))


def bind(task_obj: Any, cfg: RunConfig, *, refresh: bool | list[str] | None = False) -> Any:
    """The task with its results stored under the run's data directory.

    ``refresh`` is True (recompute everything) or a list of stage names: those stages and every
    stage downstream of them are recomputed.
    """
    storage = Path(cfg.data_path()) / "prefect" / "results"
    storage.mkdir(parents=True, exist_ok=True)
    retries = {"retries": cfg.execution.task_retries} if task_obj.retry_condition_fn is retry_transient else {}
    return task_obj.with_options(result_storage=storage, refresh_cache=refreshes(refresh, task_obj.name), **retries)


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
