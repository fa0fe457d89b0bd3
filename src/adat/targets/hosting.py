"""What every in-process LLM agent host shares: its sessions, its model call, its tool-call log.

Two hosts use it: the ``llm-agent`` target (the ``adat_reference`` plugin: retail tools and a
policy document) and the TDAD spec agent (:mod:`adat.tdad.agent_host`, fixture-bound tools and
a compiled prompt). Each keeps its own session record and tool loop; the session store, the
call that turns a provider failure into a :class:`TargetError`, and the assistant message that
echoes tool calls back to the model are this one class and two helpers.
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from adat.errors import TargetError
from adat.llm.types import LLMError, LLMResponse
from adat.records import AgentToolCall
from adat.targets.trial import trial_cache_tag

if TYPE_CHECKING:
    from adat.llm.client import LLMClient

S = TypeVar("S")


class HostedToolCall(BaseModel):
    """One tool call the model made (evaluation only; the tester never sees it)."""

    model_config = ConfigDict(extra="forbid")

    turn: int  # index of the user message it answered, from 0
    step: int  # model call within that turn, from 0
    name: str
    arguments: str  # exactly as the model wrote them
    output: str  # the tool's result, or the error text shown to the model
    error: bool


def reported_calls(calls: list[HostedToolCall]) -> list[AgentToolCall]:
    """``calls`` (one turn's, in order) as the tool calls the host reports with its reply.

    Arguments the model wrote as invalid JSON are kept as ``{"_raw": text}``; a tool's output is
    its JSON value when it is JSON, else the text.
    """
    out = []
    for order, call in enumerate(calls):
        arguments = _json_or(call.arguments, None)
        if not isinstance(arguments, dict):
            arguments = {"_raw": call.arguments} if call.arguments.strip() else {}
        out.append(AgentToolCall.make(call.name, arguments, None if call.error else _json_or(call.output, call.output),
                                 error=call.output if call.error else None, order=order))
    return out


def _json_or(text: str, default: Any) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return default


class HostedSessions(Generic[S]):
    """Sessions of one host (ids ``<prefix>-1``, ``<prefix>-2``, ...) and its model call.

    Thread-safe across sessions; one session must not be invoked concurrently.
    """

    def __init__(self, client: LLMClient, *, model: str, agent_id: str, prefix: str) -> None:
        self.client = client
        self.model = model
        self.agent_id = agent_id
        self._prefix = prefix
        self._sessions: dict[str, S] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def _add_session(self, session: S) -> str:
        with self._lock:
            session_id = f"{self._prefix}-{next(self._ids)}"
            self._sessions[session_id] = session
        return session_id

    def _session(self, session_id: str) -> S:
        try:
            return self._sessions[session_id]
        except KeyError:
            raise TargetError(f"{self.agent_id}: unknown session {session_id!r}") from None

    def _chat(self, role: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
              **options: Any) -> LLMResponse:
        """One model call of the host; a provider failure ends the turn as a target error. A repeated
        trial's calls are cached under the trial's tag (:mod:`adat.targets.trial`)."""
        tag = trial_cache_tag()
        if tag:
            options["cache_tag"] = "|".join(t for t in (options.get("cache_tag", ""), tag) if t)
        try:
            return self.client.chat(role, list(messages), model=self.model, tools=tools, **options)
        except LLMError as exc:
            raise TargetError(f"{self.agent_id}: model call failed: {' '.join(str(exc).split())}") from exc


def assistant_tool_message(response: LLMResponse) -> dict[str, Any]:
    """The assistant message that carries ``response``'s tool calls back into the history."""
    return {
        "role": "assistant",
        "content": response.content,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in response.tool_calls
        ],
    }
