"""Running one spec test against the spec agent (default) or any other target.

The runner starts a fresh session, sends the test's user turns in order (the one conversation
loop, :func:`adat.conversation.converse`, with the user turns as a scripted user), records what each turn
showed (:class:`SpecTurn`) and judges the test's assertions. For the spec agent it adds its own
check per turn -- ``respond`` called exactly once (clause ``response_contract``) -- so a turn
without ``respond`` fails the test. Any other target (``reset`` / ``invoke``) runs the same
tests: a reply that is a JSON object counts as its respond payload, and tool-trace assertions
apply only when the target reports its tool calls -- with its reply (an
:class:`~adat.targets.base.AgentReply`'s ``tool_calls``: the reference agent, the llm-agent, an
``http`` target reading ``target.tool_calls_path``) or, failing that, by a ``tool_calls(session_id)``
method returning records with ``turn``, ``name``, ``arguments``, ``output``, ``error``;
everything else is ``not_observable``. A target that reported calls on one turn of a test is taken
to report them on every turn (a turn without calls made none). Such a target's tools answer from its own data, never from
the test's fixtures: an assertion whose expected value only a fixture holds
(:func:`adat.tdad.target_fit.fixture_bound`) is ``not_observable`` on it, its detail starting
with :data:`~adat.tdad.target_fit.FIXTURES_NOT_DELIVERED`.

A test's verdict is :func:`adat.trace_assertions.verdict_of`: ``pass``, ``fail`` or
``not_observable`` (nothing it needs was observed; never a pass).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import TYPE_CHECKING, Any

from adat import conversation
from adat.config import RunConfig
from adat.contracts.tdad_spec import Spec
from adat.conversation import ScriptedUser
from adat.records import SpecResult
from adat.spec_records import AgentToolCall, AssertionOutcome, SpecTest, SpecTurn
from adat.targets.base import AgentReply, Target
from adat.tdad.agent_host import SpecAgentHost
from adat.tdad.artifact import PromptArtifact
from adat.tdad.target_fit import FIXTURES_NOT_DELIVERED, fixture_bound
from adat.trace_assertions import evaluate_all, verdict_of

if TYPE_CHECKING:
    from adat.llm.client import LLMClient

RESPOND_CLAUSE = "response_contract"
DEFAULT_MAX_STEPS = 8


def run_spec_test(cfg: RunConfig, client: LLMClient, spec: Spec, artifact: PromptArtifact, test: SpecTest, *,
                  run_id: str, rerun: int = 0, target: Target | None = None,
                  agent_variant: str = "compiled", agent_model: str | None = None) -> SpecResult:
    """Run ``test`` once and judge it (see the module docstring). With no ``target`` it runs on the
    spec agent on ``agent_model`` (default ``cfg.models.spec_agent``; an ``llm-agent`` target's model
    when the suite runs on it), bound to the test's fixtures. The stage that runs it sets the row's
    ``iteration`` / ``scope`` (:func:`adat.tdad.suite_runs.stage_row`)."""
    host: Target | SpecAgentHost | None = target
    if host is None:  # the cache tag names the rerun, so pass^k reruns are fresh calls, not cache hits
        limit = spec.defaults.limits.max_tool_calls_per_turn
        host = SpecAgentHost(client, model=agent_model or cfg.models.spec_agent, spec=spec, artifact=artifact,
                             fixtures=test.fixtures, max_steps=max(DEFAULT_MAX_STEPS, (limit or 0) + 2),
                             cache_tag=f"{test.test_id}|{agent_variant}|rerun={rerun}")
    started = time.perf_counter()
    turns: list[SpecTurn] = []
    conv = conversation.converse(host, ScriptedUser(test.user_turns), turn_limit=len(test.user_turns),
                                 observe=lambda session, i, user, reply: turns.append(
                                     _observe(host, session, i, user, reply)))
    error = " ".join(conv.error.split()) if conv.error is not None else None
    if error is not None and len(turns) < len(test.user_turns):
        turns.append(SpecTurn(user=test.user_turns[len(turns)], error=error))
    if any(t.tool_calls for t in turns):  # the target reports its calls: a turn without any made none
        turns = [t if t.tool_calls is not None else t.model_copy(update={"tool_calls": []}) for t in turns]
    results = _own_checks(host, turns) + evaluate_all(test.assertions, turns)
    if target is not None:
        results = _without_fixtures(test, results)
    verdict = verdict_of(results, turns, error)
    return SpecResult(
        result_id=uuid.uuid4().hex, run_id=run_id, test_id=test.test_id, spec_id=test.spec_id,
        spec_version=test.spec_version, split=test.split, family=test.family,
        artifact_digest=artifact.digest(), agent_variant=agent_variant,
        target=getattr(host, "agent_id", type(host).__name__), rerun=rerun, passed=verdict == "pass",
        not_observable=verdict == "not_observable", error=error,
        assertion_results=results, turns=turns, duration_s=time.perf_counter() - started)


def _observe(host: Any, session: str, turn: int, user: str, reply: AgentReply) -> SpecTurn:
    if isinstance(host, SpecAgentHost):
        return host.observed_turn(session, turn, user)
    calls: list[AgentToolCall] | None = None
    if reply.tool_calls:  # the tool calls the target reported with this reply
        calls = list(reply.tool_calls)
    elif callable(getattr(host, "tool_calls", None)):
        calls = [AgentToolCall.observed(c.name, c.arguments, c.output, error=c.error)
                 for c in host.tool_calls(session) if c.turn == turn]
    payload = _json_object(reply.text)
    text = payload.get("user_message", reply.text) if payload is not None else reply.text
    return SpecTurn(user=user, reply=text if isinstance(text, str) else reply.text,
                    respond_json=[json.dumps(payload, sort_keys=True)] if payload is not None else [],
                    tool_calls=calls)


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _without_fixtures(test: SpecTest, results: list[AssertionOutcome]) -> list[AssertionOutcome]:
    """An external target never received the fixtures: what only a fixture holds is unobservable."""
    out = []
    for result in results:
        assertion = test.assertions[result.index] if 0 <= result.index < len(test.assertions) else None
        if assertion is not None and fixture_bound(assertion, test):
            result = result.model_copy(update={
                "outcome": "not_observable",
                "detail": f"{FIXTURES_NOT_DELIVERED}: the expected value exists only in the test's fixtures, "
                          f"which this target's tools never returned"})
        out.append(result)
    return out


def _own_checks(host: Any, turns: list[SpecTurn]) -> list[AssertionOutcome]:
    """``respond`` exactly once per turn (only the spec agent host can show it)."""
    if not isinstance(host, SpecAgentHost):
        return []
    out = []
    for i, turn in enumerate(turns):
        n = len(turn.respond_json)
        if turn.error is not None:
            outcome, detail = "fail", f"turn {i}: {turn.error}"
        elif n == 1:
            outcome, detail = "pass", ""
        else:
            outcome, detail = "fail", f"turn {i}: respond called {n} times (exactly once is required)"
        out.append(AssertionOutcome(index=-1, kind="respond_once", clause=RESPOND_CLAUSE, outcome=outcome,
                                   detail=detail))
    return out
