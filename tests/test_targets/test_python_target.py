"""PythonTarget: import path loading, user errors, and agent exceptions as TargetError."""

from __future__ import annotations

import pytest

from adat.errors import TargetError, UserError
from adat.targets import SideLogged
from adat.targets.python_target import PythonTarget

MODULE = "tests.test_targets.sample_agents"


def test_loads_calls_and_forwards_evaluation_accessors() -> None:
    target = PythonTarget(f"{MODULE}:make_echo", {"prefix": "> "})
    assert target.agent_id == "echo"
    session = target.reset()
    assert target.invoke(session, "hi").text == "> hi"
    assert isinstance(target, SideLogged)
    assert target.side_log(session) == [("echo", "allowed", 0)]
    assert target.invoke(session, "hi").tool_calls == []  # a str reply reports no tool calls
    reply = target.invoke(session, "tools")
    assert reply.text == "looked" and [(c.name, c.arguments, c.result) for c in reply.tool_calls] == [
        ("lookup", {"q": 1}, [2])]


def test_agent_exception_becomes_one_line_target_error() -> None:
    target = PythonTarget(f"{MODULE}:make_echo")
    session = target.reset()
    with pytest.raises(TargetError, match="invoke\\(\\) raised ZeroDivisionError: agent divided by zero second line"):
        target.invoke(session, "crash")
    with pytest.raises(TargetError, match="returned int, not str"):
        target.invoke(session, "number")
    assert target.invoke(session, "ok").text == "ok"  # the session survives


@pytest.mark.parametrize(("factory", "expected"), [
    ("no_colon_here", "is not 'pkg.module:factory'"),
    ("tests.test_targets.no_such_module:make", "cannot import"),
    (f"{MODULE}:missing", "has no attribute 'missing'"),
    (f"{MODULE}:NOT_CALLABLE", "is not callable"),
    (f"{MODULE}:make_no_invoke", "without invoke()"),
    (f"{MODULE}:make_failing", "calling .* failed: RuntimeError: cannot start"),
])
def test_bad_factories_are_user_errors(factory: str, expected: str) -> None:
    with pytest.raises(UserError, match=expected) as info:
        PythonTarget(factory)
    assert "target." in str(info.value) and "fix:" in str(info.value)
