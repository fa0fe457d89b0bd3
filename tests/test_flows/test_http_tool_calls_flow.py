"""`adat run-suite` against an HTTP agent that reports its tool calls under a JSON path of its own
(issue 27 item 1's foundation): the calls reach the executions' Parquet (each agent turn's
``tool_calls``, and the ``stg_execution_tool_calls`` view), and ``adat show`` lists them.

The served agent is the reference agent behind a small Starlette app with a contract unlike
``serve-agent``'s: ``{"output": {"text": ..., "trace": {"calls": [OpenAI-style calls]}}}``, so the
test proves the configured paths are read. The app logs what it sent: the stored calls must be those.
The same suite then runs against the reference agent served over A2A by examples/a2a_agent/server.py
(the a2a-sdk's server app; tool calls as ADK-style DataParts), reusing the module's suite run.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from adat.cli.flow_loader import load_flow
from adat.config import RunConfig
from adat.records import Execution
from adat.reporting import ReportQueries, html_report
from adat.serving import BackgroundServer
from adat.targets.base import AgentReply, Target
from adat.targets.target_factory import build_target
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.slow

SUITE = "tools-suite"
RUN = "http-tools"


@pytest.fixture(scope="module")
def suite(prefect_harness, tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    cfg = small_demo_config(tmp_path_factory.mktemp("tools-suite") / "data", sessions=4, n=6, run_id=SUITE)
    load_flow("pipeline")(config=cfg)
    return cfg


def _app(agent: Target, sent: dict[str, list[list[dict[str, Any]]]]) -> Starlette:
    """The agent under a contract of its own; ``sent[session]`` logs the calls it reported, turn by turn."""

    async def new_session(_request: Request) -> JSONResponse:
        return JSONResponse({"data": {"sid": agent.reset()}})

    async def message(request: Request) -> JSONResponse:
        session, text = request.path_params["sid"], (await request.json())["text"]
        reply = agent.invoke(session, text)
        assert isinstance(reply, AgentReply)
        calls = [{"function": {"name": c.name, "arguments": json.dumps(c.arguments)}, "output": c.result,
                  "error": c.error} for c in reply.tool_calls]
        sent.setdefault(session, []).append(calls)
        return JSONResponse({"output": {"text": reply.text, "trace": {"calls": calls}}})

    return Starlette(routes=[Route("/s", new_session, methods=["POST"]), Route("/s/{sid}/m", message, methods=["POST"])])


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", *args],
                          capture_output=True, text=True, timeout=900)



def _assert_shown_and_reported(suite: RunConfig, run: str, executions: list[Execution]) -> None:
    """`adat show` lists the first call of an execution that has some, and the HTML report's
    transcript renders every call of that execution under its reply."""
    with_calls = next(e for e in executions if any(t.tool_calls for t in e.turns))
    shown = _cli("show", with_calls.execution_id, "--run", run, "--data-dir", str(suite.data_path()))
    assert shown.returncode == 0, shown.stderr[-2000:]
    first = next(c for t in with_calls.turns for c in t.tool_calls)
    assert f"tool {first.name}(" in " ".join(shown.stdout.split()), shown.stdout[-3000:]

    queries = ReportQueries(suite.data_path())
    turns = html_report._transcripts(queries, run, [with_calls.execution_id])[with_calls.execution_id]
    context = html_report.report_context(queries, run)
    context["failing"] = [{"verdict": "fail", "test_id": with_calls.test_id, "kind": "plain", "goal": "g",
                           "rationale": "r", "audit_validity": None, "error": None,
                           "execution_id": with_calls.execution_id, "turns": turns}]
    page = html_report.render_report(context)
    assert page.count('<div class="call">tool <code>') == sum(len(t.tool_calls) for t in with_calls.turns)
    assert f"<code>{first.name}(" in page

def test_tool_calls_under_a_json_path_reach_parquet_and_adat_show(suite: RunConfig, tmp_path: Path) -> None:
    from prefect.settings import PREFECT_API_URL

    sent: dict[str, list[list[dict[str, Any]]]] = {}
    server = BackgroundServer(_app(build_target(suite.target, suite), sent), name="tools-agent")
    server.start_in_thread()
    try:
        data = suite.model_dump(mode="json")
        data.update(run_id=RUN, target={
            "type": "http", "base_url": server.url, "reset_path": "/s", "invoke_path": "/s/{session_id}/m",
            "session_id_path": "data.sid", "message_field": "text", "reply_path": "output.text",
            "tool_calls_path": "output.trace.calls", "timeout_s": 30})
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump(data))
        env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
        result = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run-suite",
                                 "--config", str(config), "--suite", SUITE], capture_output=True, text=True,
                                timeout=900, env=env)
    finally:
        server.stop()
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert any(any(turns) for turns in sent.values()), "the agent made no tool call: the test would prove nothing"

    executions = [e for e in read_records(suite.data_path(), "executions", run_id=RUN) if isinstance(e, Execution)]
    assert executions and all(e.error is None for e in executions)
    stored = 0
    for e in executions:
        reported = sent[e.session_id.split(":")[-1]]  # a run-wide scope may prefix the agent's id
        for i, (user, agent) in enumerate(zip(e.turns[::2], e.turns[1::2], strict=False)):
            assert user.role == "user" and agent.role == "agent" and user.tool_calls == []
            expected = reported[i]
            assert [(c.name, c.arguments, c.result, c.error, c.order) for c in agent.tool_calls] == [
                (x["function"]["name"], json.loads(x["function"]["arguments"]), x["output"], x["error"], i)
                for i, x in enumerate(expected)]
            stored += len(agent.tool_calls)
    assert stored > 0

    query = tmp_path / "calls.sql"  # the staging view, read through the CLI as a user would
    query.write_text("-- params: run_id\nselect * from stg_execution_tool_calls where run_id = $run_id")
    view = _cli("sql", str(query), "--run", RUN, "--format", "csv", "--data-dir", str(suite.data_path()))
    assert view.returncode == 0, view.stderr[-2000:]
    rows = list(csv.DictReader(io.StringIO(view.stdout)))
    assert len(rows) == stored and {r["name"] for r in rows} == {c.name for e in executions for t in e.turns
                                                                  for c in t.tool_calls}

    _assert_shown_and_reported(suite, RUN, executions)


def test_otlp_spans_of_an_instrumented_python_agent_reach_parquet_show_and_report(suite: RunConfig,
                                                                                  tmp_path: Path) -> None:
    """Issue 27: a python agent instrumented with the OpenTelemetry SDK (TracerProvider, batch
    processor, OTLPSpanExporter over HTTP to adat's receiver on a free port) answers text only; its
    tool calls reach ``executions.turns`` through the receiver, exported after each reply."""
    from prefect.settings import PREFECT_API_URL

    log = tmp_path / "calls.jsonl"
    data = suite.model_dump(mode="json")
    data.update(run_id="otlp-tools", target={
        "type": "python", "factory": "tests.test_targets.otlp_agents:make_traced_reference",
        "kwargs": {"log_path": str(log), "delay_ms": 200},  # endpoint: the receiver adat started
        "otlp": {"enabled": True, "port": 0, "settle_s": 10}})
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump(data))
    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    result = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run-suite",
                             "--config", str(config), "--suite", SUITE], capture_output=True, text=True,
                            timeout=900, env=env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    sent: dict[str, list[list[Any]]] = {}
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        sent.setdefault(entry["session"], []).append(entry["calls"])
    assert any(any(turns) for turns in sent.values()), "the agent made no tool call: the test would prove nothing"

    executions = [e for e in read_records(suite.data_path(), "executions", run_id="otlp-tools")
                  if isinstance(e, Execution)]
    assert executions and all(e.error is None for e in executions)
    stored = 0
    for e in executions:
        reported = sent[e.session_id.split(":")[-1]]
        agent_turns = e.turns[1::2]
        assert len(agent_turns) == len(reported)
        for turn, expected in zip(agent_turns, reported, strict=True):
            assert [[c.name, c.arguments, c.result, c.error] for c in turn.tool_calls] == expected
            assert [c.order for c in turn.tool_calls] == list(range(len(expected)))
            stored += len(turn.tool_calls)
    assert stored > 0

    _assert_shown_and_reported(suite, "otlp-tools", executions)


# --- the same suite against an A2A agent (target.type: a2a) ----------------------------------------

A2A_RUN = "a2a-tools"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "a2a_agent" / "server.py"


class _Recording:
    """The reference agent, logging the tool calls of each reply by session, turn by turn."""

    def __init__(self, agent: Target) -> None:
        self.agent, self.agent_id = agent, agent.agent_id
        self.sent: dict[str, list[list[Any]]] = {}

    def reset(self) -> str:
        return self.agent.reset()

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        reply = self.agent.invoke(session_id, user_message)
        assert isinstance(reply, AgentReply)
        self.sent.setdefault(session_id, []).append(reply.tool_calls)
        return reply


def test_an_a2a_agent_reports_tool_calls_that_reach_parquet_adat_show_and_the_report(
        suite: RunConfig, tmp_path: Path) -> None:
    """examples/a2a_agent/server.py (the a2a-sdk's own server app) serves the reference agent; `adat
    run-suite` reaches it as target.type a2a; the calls it reported are the stored ones.

    ≈40 s on 2 cores (as the http run above): a `run-suite` CLI process under Prefect; it reuses the
    module's suite instead of building another (≈150 s)."""
    import importlib.util

    from prefect.settings import PREFECT_API_URL
    from starlette.applications import Starlette

    spec = importlib.util.spec_from_file_location("a2a_agent_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    recording = _Recording(build_target(suite.target, suite))
    executor = example.ToolReportingExecutor(recording)
    app = Starlette()
    server = BackgroundServer(app, name="a2a-agent")
    app.router.routes.extend(example.a2a_routes(executor, server.url))
    server.start_in_thread()
    try:
        data = suite.model_dump(mode="json")
        data.update(run_id=A2A_RUN, target={"type": "a2a", "url": server.url, "timeout_s": 30})
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump(data))
        env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
        result = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run-suite",
                                 "--config", str(config), "--suite", SUITE], capture_output=True, text=True,
                                timeout=900, env=env)
    finally:
        server.stop()
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert any(any(turns) for turns in recording.sent.values()), "the agent made no tool call: the test would prove nothing"

    executions = [e for e in read_records(suite.data_path(), "executions", run_id=A2A_RUN) if isinstance(e, Execution)]
    assert executions and all(e.error is None for e in executions)
    assert len({e.session_id for e in executions}) == len(executions)  # one A2A context per execution
    stored = 0
    for e in executions:
        reported = recording.sent[executor.sessions[e.session_id.split(":")[-1]]]  # context id -> agent session
        agent_turns = e.turns[1::2]
        assert len(agent_turns) == len(reported)
        for agent, expected in zip(agent_turns, reported, strict=True):
            assert agent.role == "agent"
            assert [(c.name, c.arguments, c.result, c.error, c.order) for c in agent.tool_calls] == [
                (c.name, c.arguments, None if c.error else c.result, c.error, i) for i, c in enumerate(expected)]
            stored += len(agent.tool_calls)
    assert stored > 0

    _assert_shown_and_reported(suite, A2A_RUN, executions)
