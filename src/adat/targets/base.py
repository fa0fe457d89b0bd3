"""The target protocol: exactly two operations, as a black-box tester sees an agent.

``invoke`` answers with an :class:`AgentReply`: the reply text and, when the target can report
them, the tool calls it made for that turn and its state. A text-only target reports a reply with
no tool calls; :func:`as_reply` turns a plain string (what a user's python agent may return) into one.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from adat.records import AgentToolCall

__all__ = ["AgentReply", "SideLogged", "Target", "AgentToolCall", "as_reply"]


class AgentReply(BaseModel):
    """One turn's answer: the text the user sees, the tool calls behind it and, if known, state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    tool_calls: list[AgentToolCall] = Field(default_factory=list)
    state: dict[str, Any] | None = None


def as_reply(value: AgentReply | str) -> AgentReply:
    """``value`` as an :class:`AgentReply` (a string is a text-only reply)."""
    return value if isinstance(value, AgentReply) else AgentReply(text=str(value))


@runtime_checkable
class Target(Protocol):
    """An agent under test.

    ``reset`` starts a fresh session and returns its id; ``invoke`` sends one user message in
    that session and returns the agent's reply. Failures raise :class:`adat.errors.TargetError`.
    """

    agent_id: str

    def reset(self) -> str: ...

    def invoke(self, session_id: str, user_message: str) -> AgentReply: ...


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
