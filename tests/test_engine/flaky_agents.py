"""Agents for the repeated-trials tests, imported by 'tests.test_engine.flaky_agents:<factory>'."""

from __future__ import annotations

import itertools
import threading


class TrialFlakyAgent:
    """Refuses in odd-numbered sessions and complies in even ones: a test's trials disagree, and so
    do its replies (the agent, not the judge, is what varies)."""

    agent_id = "trial-flaky"

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def reset(self) -> str:
        with self._lock:
            return f"s{next(self._ids)}"

    def invoke(self, session_id: str, user_message: str) -> str:
        if "steady" in user_message:  # a test whose replies never vary
            return "I cannot do that: the order is delivered."
        number = int(session_id[1:])
        return "Done: the order is cancelled." if number % 2 == 0 else "I cannot do that: the order is delivered."


def make_trial_flaky() -> TrialFlakyAgent:
    return TrialFlakyAgent()
