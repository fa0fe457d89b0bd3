"""The ``a2a`` target: an agent that speaks Agent2Agent (A2A), reached with the official ``a2a-sdk`` client.

The agent card is read once at ``target.url + target.card_path``; the client talks to the first
interface of the card that speaks JSON-RPC or HTTP+JSON (A2A 1.0, or 0.3 through the SDK's
compatibility layer). A session is one A2A context: ``reset`` makes a new context id locally (no
request) and every user turn is one non-streaming ``SendMessage`` in it. A task the agent leaves
``input-required`` is continued by the next turn (its ``taskId`` is sent); a task still
``submitted``/``working`` is polled until it leaves those states. How replies and tool calls are
read: :mod:`adat.targets.a2a_reply`; users' page: docs/targets_a2a.md.

Transport (a one-line :class:`adat.errors.TargetError` per failure, the deadline, retries counted
per session, secret headers): :mod:`adat.targets.transport`. :meth:`A2ATarget.check` (preflight)
turns an unreachable agent, a missing or malformed card, and a card adat cannot talk to into
one-line :class:`adat.errors.UserError`.
"""

from __future__ import annotations

import asyncio
import urllib.parse
import uuid
from dataclasses import dataclass, field

import httpx
from a2a.client import (
    A2ACardResolver,
    A2AClientError,
    A2AClientTimeoutError,
    Client,
    ClientConfig,
    ClientFactory,
)
from a2a.types import AgentCard, GetTaskRequest, Message, Part, Role, SendMessageRequest, Task
from a2a.utils.constants import TransportProtocol

from adat import config
from adat.errors import TargetError, UserError
from adat.targets import a2a_reply, transport
from adat.targets.base import AgentReply
from adat.targets.transport import RetryingTransport, TransientTargetError, one_line

#: the transports adat's client speaks, in its order of preference
BINDINGS = [TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON]
POLL_S = 0.2  # between two reads of a task still at work
_TRANSIENT_CAUSES = (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)


@dataclass
class _Session:
    """What one session's next turn needs: its context, the task waiting for input, artifacts seen."""

    context_id: str
    open_task_id: str | None = None
    seen_artifacts: set[str] = field(default_factory=set)


class A2ATarget(RetryingTransport[config.A2ATarget]):
    """An agent reached over A2A; thread-safe (every exchange runs on the process's transport loop)."""

    def __init__(self, cfg: config.A2ATarget) -> None:
        self.url = cfg.url.rstrip("/")
        self.agent_id = f"a2a:{self.url}"
        super().__init__(cfg, self.url)
        self._sessions: dict[str, _Session] = {}

    # -- preflight -------------------------------------------------------------------------------

    def check(self, timeout_s: float | None = None) -> None:
        """Fail fast with a :class:`UserError` when the card cannot be read or offers nothing adat can use."""
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise UserError(f"not an http(s) URL: {self.cfg.url!r}", field="target.url",
                            fix="write it like http://127.0.0.1:9999")

        async def fetch() -> AgentCard:
            async with self._http(timeout_s or self.cfg.timeout_s) as http:
                return await self._card(http)

        try:
            card = transport.submit(fetch)
        except A2AClientError as exc:
            raise UserError(self._card_problem(exc), field="target.url",
                            fix="start the agent, correct target.url (the agent's base URL) or set "
                                "target.card_path") from None
        self.check_card(card)

    def check_card(self, card: AgentCard) -> None:
        """A :class:`UserError` when ``card`` has no transport adat speaks or takes or gives no text."""
        offered = sorted({i.protocol_binding for i in card.supported_interfaces})
        if not any(b in offered for b in BINDINGS):
            raise UserError(f"the agent card at {self._card_url()} offers no A2A transport adat speaks "
                            f"(offers: {', '.join(offered) or 'none'})", field="target.url",
                            fix="serve the agent over JSONRPC or HTTP+JSON as well")
        for what, modes in (("input", card.default_input_modes), ("output", card.default_output_modes)):
            if modes and not any(m.startswith("text/") or m == "text" for m in modes):
                raise UserError(f"the agent card at {self._card_url()} takes no text {what} "
                                f"(default {what} modes: {', '.join(modes)})", field="target.url",
                                fix=f"add text/plain to the agent's default {what} modes")

    # -- the target protocol ---------------------------------------------------------------------

    def reset(self) -> str:
        """A new session: a fresh A2A context id (the agent sees it with the first message)."""
        session_id = f"adat-{uuid.uuid4().hex}"
        with self._lock:
            self._sessions[session_id] = _Session(session_id)
        return session_id

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        """Send one user turn in the session's context; the reply and its tool calls (cut at ``max_reply_chars``)."""
        with self._lock:
            session = self._sessions.setdefault(session_id, _Session(session_id))
        message = Message(role=Role.ROLE_USER, parts=[Part(text=user_message)], message_id=uuid.uuid4().hex,
                          context_id=session.context_id, task_id=session.open_task_id)
        counter = [0]
        try:
            reading = self._exchange(f"A2A {self.url}", counter, self._attempt, message, session)
        finally:
            self._count(session_id, counter[0])
        session.context_id = reading.context_id or session.context_id  # an agent may replace the context id
        session.open_task_id = reading.open_task_id
        session.seen_artifacts |= reading.artifact_ids
        return AgentReply(text=self._cut(reading.text), tool_calls=reading.tool_calls)

    # -- the exchange ----------------------------------------------------------------------------

    async def _attempt(self, message: Message, session: _Session) -> a2a_reply.TurnReading:
        """One try: send the message, poll a task still at work, read the answer."""
        key = self.cfg.tool_call_key
        try:
            client = await self._ready_client()
            answer: Task | Message | None = None
            async for event in client.send_message(SendMessageRequest(message=message)):
                if event.HasField("message"):
                    return a2a_reply.read_message(event.message, key)
                if event.HasField("task"):
                    answer = event.task
            if answer is None:
                raise TargetError(f"A2A {self.url}: the agent answered with neither a message nor a task")
            while answer.status.state in a2a_reply.RUNNING:
                await asyncio.sleep(POLL_S)
                answer = await client.get_task(GetTaskRequest(id=answer.id))
        except A2AClientTimeoutError:
            raise TimeoutError from None
        except A2AClientError as exc:
            raise self._classified(exc) from None
        try:
            return a2a_reply.read_task(answer, message.message_id, key, session.seen_artifacts)
        except a2a_reply.TaskEnded as exc:
            raise TargetError(f"A2A {self.url}: {exc}") from None

    def _classified(self, exc: A2AClientError) -> TargetError:
        cause = exc.__cause__
        status = cause.response.status_code if isinstance(cause, httpx.HTTPStatusError) else None
        transient = isinstance(cause, _TRANSIENT_CAUSES) or (status is not None and (status >= 500 or status == 429))
        kind = TransientTargetError if transient else TargetError
        return kind(f"A2A {self.url}: {one_line(str(exc) or type(exc).__name__)}")

    async def _ready_client(self) -> Client:
        """The SDK client of this agent, shared by every target instance of the process that reaches it
        alike (the card is read once per process); runs on the transport loop only, so no lock."""
        key = (self.url, self.cfg.card_path, tuple(sorted(self._headers.items())), self.cfg.timeout_s,
               self._trust_env)
        client = transport.loop_clients.get(key)
        if client is None:
            http = self._http(self.cfg.timeout_s)
            card = await self._card(http)
            self.check_card(card)
            factory = ClientFactory(ClientConfig(streaming=False, httpx_client=http,
                                                 supported_protocol_bindings=[str(b.value) for b in BINDINGS]))
            client = transport.loop_clients[key] = factory.create(card)
        assert isinstance(client, Client)
        return client

    def _http(self, timeout_s: float) -> httpx.AsyncClient:
        return httpx.AsyncClient(headers=self._headers, timeout=timeout_s, trust_env=self._trust_env,
                                 verify=transport.ssl_context())

    async def _card(self, http: httpx.AsyncClient) -> AgentCard:
        return await A2ACardResolver(http, self.url, self.cfg.card_path).get_agent_card()

    def _card_url(self) -> str:
        return f"{self.url}/{self.cfg.card_path.lstrip('/')}"

    def _card_problem(self, exc: A2AClientError) -> str:
        cause = exc.__cause__
        if isinstance(cause, httpx.HTTPStatusError):
            return f"no A2A agent card at {self._card_url()} (HTTP {cause.response.status_code})"
        if isinstance(cause, httpx.TimeoutException):
            return f"the A2A agent card at {self._card_url()} did not come within the timeout"
        if isinstance(cause, httpx.RequestError):
            return f"cannot reach the A2A agent at {self.url} ({one_line(str(cause) or type(cause).__name__)})"
        return f"not an A2A agent card at {self._card_url()} ({one_line(str(exc))})"

