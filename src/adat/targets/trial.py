"""Which repeated trial of a test the current session belongs to (``run-suite --repeat k``).

The runner sets it around each execution (:func:`adat.stages.execution.execute_test`); a target that
calls a model through adat's client (the ``llm-agent`` host) asks the response cache under the
trial's tag, so trial 2 of a test is a new model call, not trial 1's cached answer — otherwise k
trials of an LLM agent would replay one conversation and could never disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_TRIAL: ContextVar[int] = ContextVar("adat_trial", default=1)


@contextmanager
def in_trial(trial: int) -> Iterator[None]:
    """Run the enclosed session as trial ``trial`` (1 = the first, whose cache keys never change)."""
    token = _TRIAL.set(trial)
    try:
        yield
    finally:
        _TRIAL.reset(token)


def trial_cache_tag() -> str:
    """The response-cache tag of the current trial: empty for trial 1."""
    trial = _TRIAL.get()
    return f"trial={trial}" if trial > 1 else ""
