"""The target protocol: exactly two operations, as a black-box tester sees an agent."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Target(Protocol):
    """An agent under test.

    ``reset`` starts a fresh session and returns its id; ``invoke`` sends one user message in
    that session and returns the agent's reply. Failures raise :class:`adat.errors.TargetError`.
    """

    agent_id: str

    def reset(self) -> str: ...

    def invoke(self, session_id: str, user_message: str) -> str: ...


@runtime_checkable
class SideLogged(Protocol):
    """A target that keeps an evaluation-only rule side log (the reference agents).

    The tester never reads it; only the auditor does.
    """

    def side_log(self, session_id: str) -> list[tuple[str, str, int]]:
        """(rule_id, side 'allowed'|'denied', user-turn index) evaluated in the session.

        A target may also have ``decisions(session_id)``: the same triples with the side the agent
        variant took (a seeded fault's flip shows there); without it the decisions go unreported.
        """
        ...
