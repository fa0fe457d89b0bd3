"""The http target's transport against a real misbehaving server (tests/support/fault_agent.py):
cut-off, closed, dripped, oversized and refused replies are TargetErrors or marked replies, never
escaping exceptions; transient ones are retried and counted; ``timeout_s`` is a deadline for the
whole reply; configured header values never leave the target in a reply or an error."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import pytest

from adat import redaction
from adat.config import HttpTarget as HttpTargetConfig
from adat.errors import TargetError
from adat.records import TestCase
from adat.stages.execution import execute_test
from adat.targets import http
from adat.targets.http import HttpTarget
from tests.support.fault_agent import FaultAgent, Plan, fault_agent

SECRET = "tok-Zq81-very-secret-4711"


class EchoAgent:
    """The agent behind the faulty server: numbered sessions, echoed messages."""

    agent_id = "echo"

    def __init__(self) -> None:
        self._ids = itertools.count(1)

    def reset(self) -> str:
        return f"s{next(self._ids)}"

    def invoke(self, session_id: str, user_message: str) -> str:
        return f"echo: {user_message}"


def sequence(*faults: str) -> Plan:
    """Message POSTs get ``faults`` in order, then "ok"; session resets are always ok."""
    todo = list(faults)
    return lambda _n, path: (todo.pop(0) if todo else "ok") if path.endswith("/messages") else "ok"


@pytest.fixture
def serve() -> Iterator[object]:
    servers = []

    def start(plan: Plan, **kwargs: object) -> FaultAgent:
        ctx = fault_agent(EchoAgent(), plan, **kwargs)  # type: ignore[arg-type]
        servers.append(ctx)
        return ctx.__enter__()

    yield start
    for ctx in servers:
        ctx.__exit__(None, None, None)


def _target(url: str, **overrides: object) -> HttpTarget:
    cfg = {"base_url": url, "timeout_s": 5.0, "retry_backoff_s": 0.05, **overrides}
    return HttpTarget(HttpTargetConfig.model_validate(cfg))


@pytest.mark.parametrize("fault", ["truncate", "close", "e503"])
def test_an_intermittent_transient_fault_is_retried_and_counted(serve, fault: str) -> None:
    server = serve(sequence(fault))
    target = _target(server.url)
    session = target.reset()
    assert target.invoke(session, "hi").text == "echo: hi"
    assert target.transport_retries(session) == 1
    assert [f for _n, p, f, _s in server.logged() if p.endswith("/messages")] == [fault, "ok"]


@pytest.mark.parametrize(("fault", "says"), [("truncate", "reply cut off or connection closed"),
                                             ("close", "reply cut off or connection closed"),
                                             ("e503", "HTTP 503")])
def test_a_persistent_transient_fault_is_an_error_after_max_retries(serve, fault: str, says: str) -> None:
    server = serve(sequence(*[fault] * 5))
    target = _target(server.url, max_retries=3)
    session = target.reset()
    with pytest.raises(TargetError) as info:
        target.invoke(session, "hi")
    message = str(info.value)
    assert says in message and "(after 3 retries)" in message and "\n" not in message
    assert info.value.retries == 3 and target.transport_retries(session) == 3
    assert len([1 for _n, p, _f, _s in server.logged() if p.endswith("/messages")]) == 4


def test_a_client_error_is_not_retried(serve) -> None:
    server = serve(sequence("echo400"))
    target = _target(server.url)
    with pytest.raises(TargetError, match="HTTP 400") as info:
        target.invoke(target.reset(), "hi")
    assert info.value.retries == 0 and "after" not in str(info.value)
    assert len(server.logged()) == 2  # the reset and one message


@pytest.mark.parametrize("timeout_s", [2.0, 4.0])
def test_timeout_is_a_deadline_for_the_whole_reply(serve, timeout_s: float) -> None:
    server = serve(sequence("drip"), drip_s=0.25)  # a ~30-byte body at 4 bytes/s: > 7 s in all
    target = _target(server.url, timeout_s=timeout_s)
    session = target.reset()
    start = time.monotonic()
    with pytest.raises(TargetError, match=r"no complete answer within .* s \(timeout\)") as info:
        target.invoke(session, "a message long enough to drip for a while")
    elapsed = time.monotonic() - start
    assert timeout_s - 0.1 <= elapsed <= timeout_s + 1.0, elapsed
    assert info.value.retries == 0  # the deadline is spent: no retry
    assert target.invoke(target.reset(), "next").text == "echo: next"


def test_retries_stay_inside_the_deadline(serve) -> None:
    server = serve(sequence(*["e503"] * 50))
    target = _target(server.url, timeout_s=1.5, max_retries=10, retry_backoff_s=0.4)
    start = time.monotonic()
    with pytest.raises(TargetError, match=r"\(timeout\); retrying after: .*HTTP 503"):
        target.invoke(target.reset(), "hi")
    assert time.monotonic() - start <= 2.5
    assert server.log  # it did try


def test_an_oversized_reply_is_cut_and_marked(serve) -> None:
    server = serve(sequence("oversize"))
    target = _target(server.url, max_reply_chars=1000)
    reply = target.invoke(target.reset(), "hi").text
    assert reply.startswith("echo: hi x")
    assert reply.endswith(f"[adat: reply cut at 1000 of {len('echo: hi ') + 1_100_000} characters]")
    assert len(reply) < 1100


def test_a_body_over_the_byte_cap_is_an_error_not_a_crash(serve, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "MAX_BODY_BYTES", 100_000)
    server = serve(sequence("oversize"))
    target = _target(server.url)
    with pytest.raises(TargetError, match="reply body over 100000 bytes"):
        target.invoke(target.reset(), "hi")


@pytest.mark.parametrize("fault", ["echo400", "echo500", "echo_reply"])
def test_header_values_never_leave_the_target(serve, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    monkeypatch.setenv("ADAT_TEST_AGENT_TOKEN", SECRET)
    server = serve(sequence(fault, fault, fault))
    target = _target(server.url, max_retries=1,
                     headers={"Authorization": "Bearer ${ADAT_TEST_AGENT_TOKEN}", "X-Tenant": "acme-tenant-9"})
    session = target.reset()
    try:
        text = target.invoke(session, "hi").text
    except TargetError as exc:
        text = str(exc)
    assert "authorization" in text.lower()  # the echo is there ...
    assert SECRET not in text and "acme-tenant-9" not in text and redaction.MASK in text  # ... masked


def test_execute_test_records_faults_and_retries_on_the_execution(serve) -> None:
    server = serve(sequence("close", "ok", "truncate", "ok", "e503", "e503", "e503"))
    target = _target(server.url, max_retries=2)
    test = TestCase(test_id="t1", run_id="r", kind="plain", goal="g", step_hints=["one", "two", "three"], turn_limit=5)
    execution = execute_test(target, test, "r")
    assert execution.ended_by == "error" and "HTTP 503" in (execution.error or "")
    assert execution.retries == 4  # one each for the first two messages, two for the third
    assert [t.text for t in execution.turns if t.role == "agent"] == ["echo: one", "echo: two"]
    assert server.log


def test_a_refused_connection_is_retried_then_recorded() -> None:
    from adat.prefect_server import free_port

    target = _target(f"http://127.0.0.1:{free_port()}", max_retries=2)
    test = TestCase(test_id="t1", run_id="r", kind="plain", goal="g", step_hints=["one"])
    execution = execute_test(target, test, "r")
    assert execution.ended_by == "error" and "connection failed" in (execution.error or "")
    assert execution.retries == 2


def test_the_target_pickles_with_its_retry_counts(serve) -> None:
    import pickle

    server = serve(sequence("close"))
    target = _target(server.url)
    session = target.reset()
    assert target.invoke(session, "hi").text == "echo: hi"
    clone = pickle.loads(pickle.dumps(target))
    assert clone.transport_retries(session) == 1 and clone.invoke(session, "again").text == "echo: again"
