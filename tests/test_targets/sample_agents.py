"""Agents for the python-target tests, imported by 'tests.test_targets.sample_agents:<factory>'."""

from __future__ import annotations

import itertools


class EchoAgent:
    agent_id = "echo"

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self._ids = itertools.count(1)
        self.seen: dict[str, list[str]] = {}

    def reset(self) -> str:
        session_id = f"e{next(self._ids)}"
        self.seen[session_id] = []
        return session_id

    def invoke(self, session_id: str, user_message: str) -> str:
        if user_message == "crash":
            raise ZeroDivisionError("agent divided by zero\nsecond line")
        if user_message == "number":
            return 42  # type: ignore[return-value]
        if user_message == "tools":  # an agent may answer an AgentReply with its tool calls
            from adat.targets.base import AgentReply, AgentToolCall

            return AgentReply(text="looked", tool_calls=[AgentToolCall.make("lookup", {"q": 1}, [2])])  # type: ignore[return-value]
        self.seen[session_id].append(user_message)
        return f"{self.prefix}{user_message}"

    def side_log(self, session_id: str) -> list[tuple[str, str, int]]:
        return [("echo", "allowed", i) for i, _ in enumerate(self.seen[session_id])]


def make_echo(prefix: str = "") -> EchoAgent:
    return EchoAgent(prefix)


class NoInvoke:
    def reset(self) -> str:
        return "x"


def make_no_invoke() -> NoInvoke:
    return NoInvoke()


def make_failing() -> EchoAgent:
    raise RuntimeError("cannot start")


NOT_CALLABLE = 3
