"""The ``llm-agent`` target: an LLM with a policy document and the retail tools (the τ-bench setting).

The system prompt is a short preamble with the tool-use rules followed by the policy document,
and nothing else (as in τ²-bench). Each session gets a fresh copy of the database and its own
message history. One user message may take several model calls: while the model answers with
tool calls, each is executed and its result -- or the error text of a bad call (unknown tool,
arguments that are not JSON, a refused precondition) -- goes back to the model as a tool
message. A text answer ends the turn; ``max_steps`` model calls without one end it with a fixed
apology, and the step cap is recorded on the session.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adat.errors import ToolError, UserError
from adat.llm.types import ToolCall
from adat.targets.base import AgentReply
from adat.targets.hosting import HostedSessions, HostedToolCall, assistant_tool_message, reported_calls
from adat_reference.policy_faults import apply_fault
from adat_reference.retail import RetailDB, RetailTools, default_db_path, default_policy_path

if TYPE_CHECKING:
    from adat.llm.client import LLMClient

logger = logging.getLogger(__name__)

AGENT_ROLE = "agent"
PREAMBLE = """\
You are a customer service agent. Help the user according to the policy below, using the tools you are given.
- In each step, either send one message to the user or make tool calls; never both.
- Follow the policy exactly and deny requests that are against it.
- Use only information given by the user or returned by a tool; do not make anything up.
- Tool arguments must be a JSON object matching the tool's parameters."""
STEP_CAP_REPLY = "I'm sorry, I could not complete that request. Could you please rephrase it or try again?"


def system_prompt(policy_text: str) -> str:
    """The agent's whole system prompt: the preamble and the policy, nothing else."""
    return f"{PREAMBLE}\n\n<policy>\n{policy_text.strip()}\n</policy>"


@dataclass
class _Session:
    pristine: RetailDB  # the agent's database, shared and never written
    messages: list[dict[str, Any]]
    calls: list[HostedToolCall] = field(default_factory=list)
    capped_turns: list[int] = field(default_factory=list)
    turn: int = 0
    _tools: RetailTools | None = None

    @property
    def tools(self) -> RetailTools:
        """The session's tools over its own copy of the database, made at the first use: a copy costs
        ~10 ms of CPU under the GIL, and most sessions of a suite never call a tool."""
        if self._tools is None:
            self._tools = RetailTools(self.pristine.copy_fresh())
        return self._tools

    @property
    def db(self) -> RetailDB:
        return self.tools.db


class LLMAgent(HostedSessions[_Session]):
    """Hosts an LLM agent: policy as system prompt, retail tools as OpenAI function tools.

    Thread-safe across sessions; one session must not be invoked concurrently (the HTTP server
    holds a lock per session).
    """

    def __init__(self, client: LLMClient, *, model: str, policy: str | None = None,
                 database: str | None = None, fault: str | None = None, max_steps: int = 12) -> None:
        super().__init__(client, model=model, agent_id=f"llm-agent:{model}" + (f"+{fault}" if fault else ""),
                         prefix="llm")
        self.fault = fault
        self.max_steps = max_steps
        policy_path = Path(policy) if policy else default_policy_path()
        if not policy_path.is_file():
            raise UserError("policy document not found", file=str(policy_path), field="target.policy",
                            fix="give the path of a policy text file, or leave it empty for the shipped one")
        policy_text = policy_path.read_text(encoding="utf-8")
        if fault:
            policy_text = apply_fault(policy_text, fault)
        self.policy_text = policy_text
        self._system = system_prompt(policy_text)
        self._db = RetailDB.load(Path(database) if database else default_db_path())
        self._tool_schemas = RetailTools(self._db).schemas()  # schemas only; never called

    def reset(self) -> str:
        """A new session: a fresh copy of the database (made when first needed) and an empty conversation."""
        return self._add_session(_Session(pristine=self._db, messages=[{"role": "system", "content": self._system}]))

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        """Answer one user message, running the model's tool calls until it writes a reply."""
        session = self._session(session_id)
        turn = session.turn
        session.turn += 1
        session.messages.append({"role": "user", "content": user_message})
        for step in range(self.max_steps):
            response = self._chat(AGENT_ROLE, session.messages, self._tool_schemas)
            if not response.tool_calls:
                reply = response.content or ""
                session.messages.append({"role": "assistant", "content": reply})
                return AgentReply(text=reply, tool_calls=reported_calls([c for c in session.calls if c.turn == turn]))
            session.messages.append(assistant_tool_message(response))
            for call in response.tool_calls:
                output, error = self._execute(session, call)
                session.calls.append(HostedToolCall(turn=turn, step=step, name=call.name,
                                                    arguments=call.arguments, output=output, error=error))
                session.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        # The cap is part of the agent's observable behaviour: the user sees the apology.
        logger.warning("llm-agent session %s turn %d hit the step cap (%d)", session_id, turn, self.max_steps)
        session.capped_turns.append(turn)
        session.messages.append({"role": "assistant", "content": STEP_CAP_REPLY})
        return AgentReply(text=STEP_CAP_REPLY, tool_calls=reported_calls([c for c in session.calls if c.turn == turn]))

    # -- evaluation-only accessors (never shown to a tester) ---------------------------------

    def session_db(self, session_id: str) -> RetailDB:
        """The session's database as the agent's writes left it."""
        return self._session(session_id).db

    def tool_calls(self, session_id: str) -> list[HostedToolCall]:
        """Every tool call the model made in the session, in order."""
        return list(self._session(session_id).calls)

    def step_cap_hits(self, session_id: str) -> list[int]:
        """Indexes of the user turns that ended at the step cap."""
        return list(self._session(session_id).capped_turns)

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        """The full chat history sent to the model (system, user, assistant, tool messages)."""
        return [dict(m) for m in self._session(session_id).messages]

    # -- internals --------------------------------------------------------------------------

    def _execute(self, session: _Session, call: ToolCall) -> tuple[str, bool]:
        """Run one tool call; a bad call returns its error text for the model instead of raising."""
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError as exc:
            return f"Error: the arguments of {call.name} are not valid JSON ({exc})", True
        if not isinstance(args, dict):
            return f"Error: the arguments of {call.name} must be a JSON object, got {type(args).__name__}", True
        try:  # unknown tools and ill-typed arguments are ToolErrors too
            return session.tools.call(call.name, args), False
        except ToolError as exc:
            return f"Error: {exc}", True

