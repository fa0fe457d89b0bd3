"""The one conversation loop: every place adat talks to an agent goes through :func:`converse`.

Discovery (an LLM driver writes each message), execution (a test's step hints), TDAD spec tests
(a spec test's user turns) and the auditor's replays (an execution's messages again) differ only
in who plays the user, so they share this loop — as τ²-bench's orchestrator has user and agent
share one interface. A :class:`UserSimulator` proposes the next message or stops; the target
answers (an :class:`~adat.targets.base.AgentReply`: its text and the tool calls it reported, kept
on the agent's :class:`~adat.records.Turn`); an optional ``observe`` hook sees each exchange as it happens (a spec test reads what
the spec agent did in that turn). A target failure ends the conversation with ``ended_by
'error'`` and the error's text, never an exception: one bad session never stops a suite.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from adat.errors import TargetError
from adat.records import Turn
from adat.targets.base import AgentReply, Target, as_reply

#: ``observe(session_id, turn_index, user_message, reply)``, called after each reply
Observe = Callable[[str, int, str, AgentReply], None]
#: how a conversation ended (``Trace.ended_by``, ``Execution.ended_by``)
EndedBy = Literal["met", "cannot", "turn_limit", "hints_done", "error"]


@dataclass(frozen=True)
class Stop:
    """The user ends the conversation: ``reason`` becomes its ``ended_by`` (e.g. 'met', 'hints_done')."""

    reason: EndedBy


class UserSimulator(Protocol):
    """Who plays the user: the next message, or :class:`Stop`."""

    def next_message(self, turns: Sequence[Turn], turn_no: int, turn_limit: int) -> str | Stop:
        """The message of user turn ``turn_no`` (1-based) after ``turns``."""
        ...

    def at_limit(self, turn_limit: int) -> EndedBy:
        """``ended_by`` when ``turn_limit`` messages were sent and the user did not stop."""
        ...


@dataclass
class ScriptedUser:
    """Sends fixed messages in order (a test's step hints, a spec test's user turns, a replay's
    messages); stops with ``done`` when they run out."""

    messages: Sequence[str]
    done: EndedBy = "hints_done"

    def next_message(self, turns: Sequence[Turn], turn_no: int, turn_limit: int) -> str | Stop:
        return self.messages[turn_no - 1] if turn_no <= len(self.messages) else Stop(self.done)

    def at_limit(self, turn_limit: int) -> EndedBy:
        """All sent exactly at the limit is ``done``; messages left over is ``turn_limit``."""
        return self.done if len(self.messages) <= turn_limit else "turn_limit"


@dataclass
class Conversation:
    """One session: its id, its turns, how it ended and, when the target failed, the error."""

    session_id: str = ""
    turns: list[Turn] = field(default_factory=list)
    ended_by: EndedBy = "turn_limit"
    error: str | None = None
    failure: TargetError | None = field(default=None, repr=False)  # the target's exception, when it failed
    duration_s: float = 0.0

    def replies(self) -> list[str]:
        return [t.text for t in self.turns if t.role == "agent"]


def converse(target: Target, user: UserSimulator, *, turn_limit: int,
             observe: Observe | None = None) -> Conversation:
    """Start a fresh session of ``target`` and let ``user`` talk to it for at most ``turn_limit``
    user messages (see the module docstring). Turn timestamps count from the call."""
    started = time.monotonic()
    conv = Conversation()
    try:
        conv.session_id = target.reset()
        for turn_no in range(1, turn_limit + 1):
            move = user.next_message(conv.turns, turn_no, turn_limit)
            if isinstance(move, Stop):
                conv.ended_by = move.reason
                break
            conv.turns.append(Turn(role="user", text=move, ts=time.monotonic() - started))
            # a plain string (a text-only target written against the old contract) is a reply without tool calls
            reply = as_reply(target.invoke(conv.session_id, move))
            conv.turns.append(Turn(role="agent", text=reply.text, ts=time.monotonic() - started,
                                   tool_calls=list(reply.tool_calls)))
            if observe is not None:
                observe(conv.session_id, turn_no - 1, move, reply)
        else:
            conv.ended_by = user.at_limit(turn_limit)
    except TargetError as exc:
        conv.error, conv.failure = str(exc) or type(exc).__name__, exc
        conv.ended_by = "error"
    conv.duration_s = time.monotonic() - started
    return conv
