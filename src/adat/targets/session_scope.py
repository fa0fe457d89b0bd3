"""Run-wide unique session ids for any target.

An in-process target (the reference agent, a python factory) numbers its sessions from 1 in
every new instance, and each pipeline step builds its own instance; the warehouse joins the
side log, traces and executions on ``session_id``, so ids must not repeat within a run.
"""

from __future__ import annotations

import secrets
from typing import Any

from adat.targets.base import AgentReply, as_reply

#: Evaluation-only accessors that take the session id as their first argument.
PER_SESSION = frozenset({"side_log", "decisions", "session_db", "tool_calls", "fault_activations", "step_cap_hits", "messages",
                         "transport_retries"})


class ScopedSessions:
    """Wraps a target; its session ids become ``<scope>-<random>:<inner id>``."""

    def __init__(self, inner: Any, scope: str) -> None:
        self.inner = inner
        self.prefix = f"{scope}-{secrets.token_hex(3)}:"
        self.agent_id = str(getattr(inner, "agent_id", type(inner).__name__))

    def reset(self) -> str:
        return self.prefix + str(self.inner.reset())

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        return as_reply(self.inner.invoke(self._inner_id(session_id), user_message))

    def _inner_id(self, session_id: str) -> str:
        return session_id[len(self.prefix):] if session_id.startswith(self.prefix) else session_id

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)  # AttributeError keeps hasattr()/Protocol checks honest
        if name in PER_SESSION and callable(attr):
            return lambda session_id, *a, **kw: attr(self._inner_id(session_id), *a, **kw)
        return attr
