"""An A2A agent served with the official a2a-sdk, reporting its tool calls the way adat reads them.

    python examples/a2a_agent/server.py --port 9999          # serves on http://127.0.0.1:9999
    adat run --config examples/a2a_agent/run.yaml            # adat tests it (target.type: a2a)

The agent behind it is adat's rule-based reference retail agent (``--fault ID`` serves a seeded
faulty variant); :class:`ToolReportingExecutor` is the part to copy: it wraps any object with
``reset()`` and ``invoke(session, text)`` (an adat ``Target``) as an A2A ``AgentExecutor``. One A2A
context is one agent session. Per user message it opens a task, publishes each tool call the agent
made as a ``working`` status update holding two DataParts in Google ADK's convention (metadata
``adk_type: function_call`` with ``{id, name, args}``, then ``adk_type: function_response`` with
``{id, name, response}``), puts the reply text in an artifact and completes the task.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from a2a.helpers import new_data_part, new_message, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, TaskState
from starlette.applications import Starlette
from starlette.routing import Route

from adat.serving import SessionGuard

#: the DataPart metadata key ADK (and adat's ``target.tool_call_key`` default) marks tool calls with
TOOL_CALL_KEY = "adk_type"


def _tool_part(kind: str, data: dict[str, Any]) -> Part:
    part = new_data_part(data)
    part.metadata.update({TOOL_CALL_KEY: kind})
    return part


class ToolReportingExecutor(AgentExecutor):
    """Any ``reset()``/``invoke()`` agent as an A2A agent; its tool calls go out as ADK-style DataParts."""

    def __init__(self, agent: Any) -> None:
        self.guard = SessionGuard(agent)
        self.sessions: dict[str, str] = {}  # A2A context id -> the agent's session id

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            assert context.message is not None
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if task.context_id not in self.sessions:
            self.sessions[task.context_id] = await asyncio.to_thread(self.guard.reset)
        # the agent is synchronous: it runs off the event loop, one turn per session at a time
        reply = await asyncio.to_thread(self.guard.invoke, self.sessions[task.context_id], context.get_user_input())
        for call in reply.tool_calls:
            call_id = f"{task.id}-{call.order}"
            response = {"error": call.error} if call.error else call.result
            for kind, data in (("function_call", {"id": call_id, "name": call.name, "args": call.arguments}),
                               ("function_response", {"id": call_id, "name": call.name, "response": response})):
                await updater.update_status(TaskState.TASK_STATE_WORKING,
                                            new_message([_tool_part(kind, data)], task.context_id, task.id))
        await updater.add_artifact([new_text_part(reply.text)], name="reply")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("a turn of this agent cannot be cancelled")


def agent_card(url: str, name: str = "adat reference retail agent") -> AgentCard:
    """The card: text in, text out, JSON-RPC at ``url`` (the server's base URL)."""
    return AgentCard(
        name=name, description="A retail customer-service agent (orders, returns, exchanges, addresses).",
        version="1.0.0", default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        capabilities=AgentCapabilities(streaming=False),
        supported_interfaces=[AgentInterface(protocol_binding="JSONRPC", protocol_version="1.0", url=url + "/")],
        skills=[AgentSkill(id="retail-support", name="Retail support", tags=["retail"],
                           description="Cancels, modifies, returns and exchanges orders under the retail policy.")])


def a2a_routes(executor: AgentExecutor, url: str) -> list[Route]:
    """The card and the JSON-RPC endpoint of the agent ``executor`` runs, served at ``url``."""
    card = agent_card(url)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    return [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")]


def main() -> None:
    import uvicorn

    from adat.targets.target_factory import build_reference_agent

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999)
    parser.add_argument("--fault", default=None, help="serve this seeded fault of the reference agent")
    args = parser.parse_args()
    url = f"http://{args.host}:{args.port}"
    app = Starlette(routes=a2a_routes(ToolReportingExecutor(build_reference_agent(None, args.fault)), url))
    print(f"A2A agent at {url} (card: {url}/.well-known/agent-card.json); Ctrl-C stops", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
