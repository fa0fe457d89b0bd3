"""The spec agent: an llm-agent whose prompt is a compiled artifact and whose tools are fixtures.

It is an llm-agent host like the ``llm-agent`` target plugin (same ``reset`` / ``invoke`` target
interface, same session store and model call, :class:`adat.targets.hosting.HostedSessions`, same
:class:`HostedToolCall` log) with three differences a spec
demands: the system prompt and the tool descriptions come from a :class:`PromptArtifact`; each
tool is bound to the test's deterministic fixture (its output, or a failure such as ``timeout``
/ ``not_found``, optionally only for the first n calls); and a turn ends when the model calls
``respond``, whose arguments are the turn's structured answer. A model that answers in plain
text instead, or calls ``respond`` more than once, fails that turn (the runner counts the turn's
``respond`` payloads), never reusing an earlier answer.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jsonschema

from adat.contracts.tdad_spec import RESPOND_TOOL, Spec
from adat.llm.types import ToolCall
from adat.spec_records import AgentToolCall, SpecTurn, ToolFixture
from adat.targets.base import AgentReply
from adat.targets.hosting import HostedSessions, HostedToolCall, assistant_tool_message, reported_calls
from adat.tdad.artifact import PromptArtifact

if TYPE_CHECKING:
    from adat.llm.client import LLMClient

SPEC_AGENT_ROLE = "spec_agent"
ACK = json.dumps({"acknowledged": True})


@dataclass
class _Session:
    messages: list[dict[str, Any]]
    calls: list[HostedToolCall] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    responds: dict[int, list[str]] = field(default_factory=dict)  # turn -> respond payloads (JSON)
    replies: dict[int, str] = field(default_factory=dict)
    turn: int = 0


class SpecAgentHost(HostedSessions[_Session]):
    """Hosts a spec's agent for one test (fixtures bound at construction)."""

    def __init__(self, client: LLMClient, *, model: str, spec: Spec, artifact: PromptArtifact,
                 fixtures: list[ToolFixture], max_steps: int = 8, cache_tag: str = "") -> None:
        super().__init__(client, model=model, agent_id=f"spec-agent:{model}", prefix="spec")
        self.spec = spec
        self.artifact = artifact
        self.max_steps = max_steps
        self.cache_tag = cache_tag
        self._fixtures = {f.tool: f for f in fixtures}
        self._tools = [{"type": "function", "function": {
            "name": t.name, "description": artifact.description(t.name), "parameters": t.input_schema}}
            for t in spec.tools]

    def reset(self) -> str:
        return self._add_session(_Session(messages=[{"role": "system", "content": self.artifact.system_prompt}]))

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        """Run one user turn until ``respond`` is called; the reply is its ``user_message``, with the
        turn's tool calls (``respond`` included) in the order the model made them."""
        s = self._session(session_id)
        turn = s.turn
        s.turn += 1
        s.responds[turn] = []
        s.messages.append({"role": "user", "content": user_message})
        for step in range(self.max_steps):
            response = self._chat(SPEC_AGENT_ROLE, s.messages, self._tools, cache_tag=self.cache_tag)
            if not response.tool_calls:  # plain text: the turn ends without respond
                s.replies[turn] = response.content or ""
                s.messages.append({"role": "assistant", "content": response.content or ""})
                return self._reply(s, turn)
            s.messages.append(assistant_tool_message(response))
            for call in response.tool_calls:
                output, error = self._execute(s, turn, call)
                s.calls.append(HostedToolCall(turn=turn, step=step, name=call.name, arguments=call.arguments,
                                              output=output, error=error))
                s.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            if s.responds[turn]:
                break
        last = json.loads(s.responds[turn][-1]) if s.responds[turn] else None  # JSON this host wrote
        message = last.get("user_message") if isinstance(last, dict) else None
        s.replies[turn] = message if isinstance(message, str) else ""
        return self._reply(s, turn)

    def _reply(self, s: _Session, turn: int) -> AgentReply:
        return AgentReply(text=s.replies[turn], tool_calls=reported_calls([c for c in s.calls if c.turn == turn]))

    # -- what the runner observes ----------------------------------------------------------------
    def observed_turn(self, session_id: str, turn: int, user: str) -> SpecTurn:
        s = self._session(session_id)
        calls = [AgentToolCall.observed(c.name, c.arguments, c.output, error=c.error)
                 for c in s.calls if c.turn == turn]
        return SpecTurn(user=user, reply=s.replies.get(turn, ""), respond_json=list(s.responds.get(turn, [])),
                        tool_calls=calls, has_respond=True)

    # -- internals --------------------------------------------------------------------------------
    def _execute(self, s: _Session, turn: int, call: ToolCall) -> tuple[str, bool]:
        tool = self.spec.tool(call.name)
        if tool is None:
            return _error(f"unknown tool {call.name!r}"), True
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError as exc:
            return _error(f"arguments are not valid JSON ({exc})"), True
        try:
            jsonschema.validate(args, tool.input_schema)
        except jsonschema.ValidationError as exc:
            return _error(f"invalid arguments: {exc.message}"), True
        except jsonschema.SchemaError:
            pass  # the spec's own schema is broken; lint reports specs, the agent is not to blame
        if call.name == RESPOND_TOOL:
            s.responds[turn].append(json.dumps(args, ensure_ascii=False, sort_keys=True))
            return ACK, False
        s.counts[call.name] += 1
        fixture = self._fixtures.get(call.name)
        if fixture is None:
            return _error("unavailable", detail=f"no data for {call.name} in this test"), True
        if fixture.failure and (fixture.fail_times == 0 or s.counts[call.name] <= fixture.fail_times):
            return _error(fixture.failure), True
        return fixture.output_json, False


def _error(kind: str, *, detail: str = "") -> str:
    return json.dumps({"error": kind, **({"detail": detail} if detail else {})})
