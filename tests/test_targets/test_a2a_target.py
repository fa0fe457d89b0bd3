"""The ``a2a`` target against a scripted agent built with the a2a-sdk's own server (Starlette under
uvicorn on a free port): reply text, tool calls in ADK's DataPart convention, sessions as contexts,
input-required tasks continued, failed tasks and unreachable agents as one line, retries."""

from __future__ import annotations

import asyncio
import pickle
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from a2a.helpers import new_data_part, new_message, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, TaskState
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from adat import config
from adat.errors import TargetError, UserError
from adat.prefect_server import free_port
from adat.serving import BackgroundServer
from adat.targets.a2a_target import A2ATarget
from adat.targets.target_factory import build_target


def _tool(kind: str, data: dict[str, Any], key: str = "adk_type") -> Part:
    part = new_data_part(data)
    part.metadata.update({key: kind})
    return part


class ScriptedExecutor(AgentExecutor):
    """Answers by the user's text; ``seen`` logs (context id, task id, text) of every message."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []
        self.background: set[asyncio.Task[None]] = set()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        text = context.get_user_input()
        self.seen.append((context.message.context_id, context.message.task_id, text))
        if text == "direct":  # a Message, no task; calls without ids, paired by name
            await event_queue.enqueue_event(new_message([
                new_text_part("a direct answer"),
                _tool("function_call", {"name": "lookup", "args": {"q": "x"}}),
                _tool("function_response", {"name": "lookup", "response": {"hits": [1, 2.5]}})],
                context.message.context_id))
            return
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        up = TaskUpdater(event_queue, task.id, task.context_id)

        async def say(*parts: Part) -> None:
            await up.update_status(TaskState.TASK_STATE_WORKING, new_message(list(parts), task.context_id, task.id))

        if text == "calls":
            await say(_tool("function_call", {"id": "c1", "name": "find_user", "args": {"email": "a@b.c", "n": 3}}))
            await say(_tool("function_call", {"id": "c2", "name": "cancel", "args": {"order_id": "#W1"}}),
                      _tool("not_a_call", {"name": "x"}), new_data_part({"name": "plain data, no metadata"}))
            await say(_tool("function_response", {"id": "c2", "name": "cancel", "response": {"error": "not pending"}}))
            await say(_tool("function_response", {"id": "c1", "name": "find_user", "response": {"user_id": "u1"}}))
            await up.add_artifact([new_text_part("done")], name="reply")
            await up.complete()
        elif text == "other-key":
            await say(_tool("function_call", {"id": "k", "name": "keyed", "args": {}}, key="type"))
            await up.add_artifact([new_text_part("keyed")], name="reply")
            await up.complete()
        elif text == "ask":  # waits for the user; the next turn continues this task
            await say(_tool("function_call", {"id": "a1", "name": "get_order", "args": {"id": "#W1"}}))
            await up.requires_input(new_message([new_text_part("Shall I cancel #W1? (yes/no)")], task.context_id,
                                                task.id))
        elif text == "yes":
            await say(_tool("function_call", {"id": "a2", "name": "cancel", "args": {"id": "#W1"}}))
            await up.add_artifact([new_text_part(f"cancelled (task {context.message.task_id or 'new'})")],
                                  name="reply")
            await up.complete()
        elif text == "later":  # execute() returns with the task still working; it completes later
            async def finish() -> None:
                await asyncio.sleep(0.5)
                await up.add_artifact([new_text_part("finished later")], name="reply")
                await up.complete()

            self.background.add(asyncio.get_running_loop().create_task(finish()))
            await say(new_text_part("working on it"))
        elif text == "stuck":  # never finishes
            await say(new_text_part("working on it"))
        elif text == "boom":
            raise RuntimeError("agent crashed\nwith a traceback")
        elif text == "auth":
            await up.requires_auth(new_message([new_text_part("sign in first")], task.context_id, task.id))
        elif text == "fail":
            await up.failed(new_message([new_text_part("database\ndown")], task.context_id, task.id))
        else:
            await up.add_artifact([new_text_part(f"echo: {text}")], name="reply")
            await up.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def card(url: str, **changes: Any) -> AgentCard:
    fields: dict[str, Any] = {
        "name": "scripted", "description": "a scripted test agent", "version": "1",
        "default_input_modes": ["text/plain"], "default_output_modes": ["text/plain"],
        "capabilities": AgentCapabilities(streaming=False),
        "supported_interfaces": [AgentInterface(protocol_binding="JSONRPC", protocol_version="1.0", url=url + "/")],
        "skills": [AgentSkill(id="s", name="s", description="s", tags=["t"])]}
    return AgentCard(**{**fields, **changes})


class FailFirst:
    """ASGI middleware: the first ``n`` POSTs answer 503 (a transient failure the target retries)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app, self.n = app, 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and self.n > 0:
            self.n -= 1
            await JSONResponse({"error": "busy"}, status_code=503)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class Agent:
    def __init__(self) -> None:
        self.executor = ScriptedExecutor()
        self.app = Starlette()
        self.gate = FailFirst(self.app)
        self.server = BackgroundServer(self.gate, name="a2a-scripted")
        agent_card = card(self.server.url)
        handler = DefaultRequestHandler(agent_executor=self.executor, task_store=InMemoryTaskStore(),
                                        agent_card=agent_card)
        self.app.router.routes.extend([*create_agent_card_routes(agent_card), *create_jsonrpc_routes(handler, "/")])
        self.url = self.server.url


@pytest.fixture(scope="module")
def agent() -> Iterator[Agent]:
    served = Agent()
    served.server.start_in_thread()
    try:
        yield served
    finally:
        served.server.stop()


def _target(url: str, **changes: Any) -> A2ATarget:
    target = build_target(config.A2ATarget(url=url, **changes), config.RunConfig())
    assert isinstance(target, A2ATarget)
    return target


def _calls(reply: Any) -> list[tuple[Any, ...]]:
    return [(c.name, c.arguments, c.result, c.error, c.order) for c in reply.tool_calls]


def test_reply_text_and_tool_calls_of_a_task(agent: Agent) -> None:
    target = _target(agent.url)
    target.check(timeout_s=5)
    reply = target.invoke(target.reset(), "calls")
    assert reply.text == "done"
    # in the order of the calls, results paired by id; whole numbers read back as ints; other data ignored
    assert _calls(reply) == [("find_user", {"email": "a@b.c", "n": 3}, {"user_id": "u1"}, None, 0),
                             ("cancel", {"order_id": "#W1"}, None, "not pending", 1)]
    assert isinstance(reply.tool_calls[0].arguments["n"], int)


def test_a_direct_message_and_the_tool_call_key(agent: Agent) -> None:
    target = _target(agent.url)
    reply = target.invoke(target.reset(), "direct")
    assert reply.text == "a direct answer"
    assert _calls(reply) == [("lookup", {"q": "x"}, {"hits": [1, 2.5]}, None, 0)]
    assert _target(agent.url, tool_call_key=None).invoke(target.reset(), "calls").tool_calls == []
    keyed = _target(agent.url, tool_call_key="type")
    assert [c.name for c in keyed.invoke(keyed.reset(), "other-key").tool_calls] == ["keyed"]
    assert _target(agent.url).invoke(target.reset(), "other-key").tool_calls == []  # default key: adk_type


def test_each_session_is_its_own_context_and_input_required_continues_the_task(agent: Agent) -> None:
    target = _target(agent.url)
    first, second = target.reset(), target.reset()
    asked = target.invoke(first, "ask")
    assert asked.text == "Shall I cancel #W1? (yes/no)" and [c.name for c in asked.tool_calls] == ["get_order"]
    target.invoke(second, "hello")
    done = target.invoke(first, "yes")
    after = target.invoke(first, "again")
    (ask_ctx, ask_task, _), (hello_ctx, _, _), (yes_ctx, yes_task, _), (again_ctx, again_task, _) = \
        agent.executor.seen[-4:]
    assert (ask_ctx, hello_ctx, yes_ctx, again_ctx) == (first, second, first, first) and first != second
    # the answer to the question went to the waiting task; only this turn's calls are reported
    assert yes_task == ask_task and done.text == f"cancelled (task {ask_task})"
    assert [c.name for c in done.tool_calls] == ["cancel"]
    # a completed task is not continued: the next turn is a new task in the same context
    assert after.text == "echo: again" and again_task != ask_task


def test_a_pickled_target_keeps_its_sessions(agent: Agent) -> None:
    """A Dask worker or a process pool gets the target pickled, mid-session."""
    target = _target(agent.url)
    session = target.reset()
    assert target.invoke(session, "ask").text.startswith("Shall I cancel")
    copy = pickle.loads(pickle.dumps(target))
    assert copy.invoke(session, "yes").text == f"cancelled (task {agent.executor.seen[-2][1]})"


def test_a_task_still_working_is_polled_until_done_within_the_deadline(agent: Agent) -> None:
    target = _target(agent.url, timeout_s=3)
    assert target.invoke(target.reset(), "later").text == "finished later"
    started = time.monotonic()
    with pytest.raises(TargetError, match=r"no complete answer within 3 s \(timeout\)"):
        target.invoke(target.reset(), "stuck")
    assert time.monotonic() - started < 5


def test_a_failed_task_is_a_one_line_target_error(agent: Agent) -> None:
    target = _target(agent.url)
    with pytest.raises(TargetError) as failed:
        target.invoke(target.reset(), "fail")
    message = str(failed.value)
    assert "ended failed: database down" in message and agent.url in message and "\n" not in message
    with pytest.raises(TargetError, match=r"ended auth-required: sign in first .*target\.headers"):
        target.invoke(target.reset(), "auth")
    with pytest.raises(TargetError) as crashed:  # the agent's own exception, as its server reports it
        target.invoke(target.reset(), "boom")
    assert agent.url in str(crashed.value) and "\n" not in str(crashed.value)


def test_transient_failures_are_retried_and_counted(agent: Agent) -> None:
    target = _target(agent.url, retry_backoff_s=0.01)
    session = target.reset()
    target.invoke(session, "warm up")  # the card is read; the next POST is a message
    agent.gate.n = 2
    assert target.invoke(session, "hello").text == "echo: hello"
    assert target.transport_retries(session) == 2
    agent.gate.n = 5
    with pytest.raises(TargetError, match=r"HTTP Error 503.*\(after 2 retries\)$"):
        target.invoke(session, "hello")
    agent.gate.n = 0


def test_unreachable_agent_missing_card_and_unusable_card_are_one_line_user_errors(agent: Agent) -> None:
    dead = _target(f"http://127.0.0.1:{free_port()}", timeout_s=1.0, max_retries=0)
    with pytest.raises(UserError) as unreachable:
        dead.check()
    assert "target.url: cannot reach the A2A agent" in str(unreachable.value)
    assert "\n" not in str(unreachable.value)
    with pytest.raises(TargetError, match="A2A http://127.0.0.1"):
        dead.invoke(dead.reset(), "hi")  # during a run: the execution's error
    with pytest.raises(UserError, match=r"no A2A agent card at .*/nowhere.json \(HTTP 404\)"):
        _target(agent.url, card_path="/nowhere.json").check(timeout_s=5)
    with pytest.raises(UserError, match="not an http"):
        _target("127.0.0.1:9999").check()
    target = _target(agent.url)
    grpc_only = card(agent.url, supported_interfaces=[AgentInterface(protocol_binding="GRPC", url="x:1")])
    with pytest.raises(UserError, match=r"offers no A2A transport adat speaks \(offers: GRPC\)"):
        target.check_card(grpc_only)
    with pytest.raises(UserError, match=r"takes no text input .*fix: add text/plain"):
        target.check_card(card(agent.url, default_input_modes=["image/png"]))


def test_run_against_an_unreachable_a2a_agent_exits_2_in_one_line(tmp_path: Path) -> None:
    from adat.engine.config_checks import roles_used

    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({"target": {"type": "a2a", "url": f"http://127.0.0.1:{free_port()}",
                                               "timeout_s": 2},
                                    "models": dict.fromkeys(roles_used(config.RunConfig(), "run"),
                                                            config.OFFLINE_MODEL)}))
    proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                           str(path), "--data-dir", str(tmp_path / "data")], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "target.url" in lines[0] and "cannot reach the A2A agent" in lines[0], lines


def test_without_the_a2a_extra_the_target_is_a_one_line_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "adat.targets.a2a_target", None)  # as if the a2a-sdk were not installed
    with pytest.raises(UserError, match=r"target\.type: .*a2a-sdk cannot be imported.*pip install 'adat\[a2a\]'"):
        build_target(config.A2ATarget(url="http://127.0.0.1:9"), config.RunConfig())
