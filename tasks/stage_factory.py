"""The one factory that makes a stage's Prefect task from its declaration, and how tasks are cached.

:func:`stage_task` reads the stage's declaration (:mod:`adat.engine.stage_registry`): the task
is named after the stage, cached under the stage's key, retried when the stage is I/O-bound,
and runs the step through :func:`adat.engine.stage_runner.run_stage` inside the stage's budget
phase; after the step's write the ``sql/checks`` over the tables it wrote run
(:mod:`adat.engine.table_checks`), and a violation fails the task naming the check.

Cache key = :func:`adat.engine.fingerprint.stage_key` (the stage's own code, prompts and
instruction catalog, the target's artifacts, the result-changing config fields, run id and the
task's parameters, ``after`` among them: the upstream results) + the task's source. Results are
persisted next to the warehouse (``<data_dir>/prefect``) so deleting a data directory also
forgets its cache; ``refresh_cache=True`` forces a recompute.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import TASK_SOURCE, CacheKeyFnPolicy

from adat.config import ExecutionConfig, RunConfig
from adat.engine.context import StepResult
from adat.engine.fingerprint import stage_key
from adat.engine.stage_registry import refreshes, stage
from adat.engine.stage_runner import run_stage
from adat.engine.table_checks import run_checks
from adat.errors import TargetError, UserError
from adat.llm.budget import phase as budget_phase
from adat.llm.types import LLMError, TransientProviderError
from adat.progress import terminal_progress
from adat.records import TABLES


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


def stage_task(name: str, fn: Callable[..., Any] | None = None) -> Any:
    """The cached Prefect task of stage ``name``, made from its declaration.

    Its parameters are ``(cfg, run_id, after=None, *, <the step's own parameters>)``: ``after``
    (upstream results, a suite's or a spec's digest) only enters the cache key. Its LLM calls count
    against the budget phase ``name``. An I/O-bound stage retries a transient failure
    (``execution.task_retries`` times, set by :func:`bind`), visible as retries in the Prefect UI;
    a resumable stage (transformation) continues where the failed try stopped. ``fn``: run this
    function instead of the step, under the stage's cache policy (the mapped execution's per-test task).
    """
    spec = stage(name)
    make = task(name=name, cache_policy=cache_policy(name), persist_result=True,
                retries=DEFAULT_RETRIES if spec.io_bound else 0, retry_delay_seconds=[5, 30],
                retry_condition_fn=retry_transient if spec.io_bound else None)
    if fn is not None:
        return make(in_phase(name, fn))

    def run_declared_stage(cfg: RunConfig, run_id: str, after: Any = None, **params: Any) -> StepResult:
        started = time.time()  # parts older than this are not the step's own (table_checks)
        with budget_phase(name):
            key = stage_key(name, {"cfg": cfg, "run_id": run_id, "after": after, **params}) if spec.resumable else None
            result = run_stage(name, cfg, run_id, key=key, progress=progress, **params)
        if spec.checked_alone:
            clock = time.perf_counter()
            ran = run_checks(cfg.data_path(), run_id, [t for t in result.paths if t in TABLES], name, started)
            if ran:
                get_run_logger().info("sql/checks after %s: %d passed in %.2f s", name, ran, time.perf_counter() - clock)
        return result

    step = inspect.signature(spec.step)
    own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in list(step.parameters.values())[1:]
           if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    run_declared_stage.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter("cfg", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=RunConfig),
        inspect.Parameter("run_id", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str),
        inspect.Parameter("after", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None), *own],
        return_annotation=StepResult)
    run_declared_stage.__doc__ = spec.step.__doc__
    return make(run_declared_stage)


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
