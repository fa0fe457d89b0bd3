"""Reading one A2A answer (adat.targets.a2a_reply) on hand-built tasks: which parts belong to the
turn, how calls and responses pair, and what ends a task."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.helpers import new_data_part, new_text_part
from a2a.types import Artifact, Message, Part, Role, Task, TaskState, TaskStatus

from adat.targets.a2a_reply import TaskEnded, read_task, tool_calls


def _tool(kind: str, data: dict[str, Any]) -> Part:
    part = new_data_part(data)
    part.metadata.update({"adk_type": kind})
    return part


def _msg(message_id: str, *parts: Part, role: Any = Role.ROLE_AGENT) -> Message:
    return Message(message_id=message_id, role=role, parts=list(parts), context_id="c", task_id="t")


def test_only_this_turns_parts_count_and_a_status_message_in_the_history_counts_once() -> None:
    status = _msg("s2", new_text_part("Confirm?"), _tool("function_call", {"id": "b", "name": "two", "args": {}}))
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.TASK_STATE_INPUT_REQUIRED, message=status),
                history=[_msg("u1", new_text_part("first"), role=Role.ROLE_USER),
                         _msg("a1", _tool("function_call", {"id": "a", "name": "one", "args": {}})),
                         _msg("u2", new_text_part("second"), role=Role.ROLE_USER),
                         status],
                artifacts=[Artifact(artifact_id="old", parts=[new_text_part("an earlier turn's answer")])])
    reading = read_task(task, "u2", "adk_type", seen_artifacts={"old"})
    assert reading.text == "Confirm?" and reading.open_task_id == "t"
    assert [c.name for c in reading.tool_calls] == ["two"]
    assert reading.artifact_ids == {"old"}


def test_calls_and_responses_pair_by_id_then_by_name() -> None:
    parts = [_tool("function_call", {"id": "1", "name": "f", "args": {"x": 1}}),
             _tool("function_call", {"name": "g", "args": {"y": 2.5}}),
             _tool("function_call", {"name": "g", "args": {"y": 3}}),
             _tool("function_response", {"name": "g", "response": {"ok": True}}),
             _tool("function_response", {"id": "9", "name": "h", "response": {"error": {"code": 4}}}),
             _tool("function_response", {"id": "1", "name": "f", "response": "done"}),
             _tool("function_call", {"args": {}})]  # no name: not the convention's shape
    got = [(c.name, c.arguments, c.result, c.error, c.order) for c in tool_calls(parts, "adk_type")]
    assert got == [("f", {"x": 1}, "done", None, 0), ("g", {"y": 2.5}, {"ok": True}, None, 1),
                   ("g", {"y": 3}, None, None, 2), ("h", {}, None, '{"code": 4}', 3)]
    assert tool_calls(parts, None) == [] and tool_calls(parts, "type") == []


@pytest.mark.parametrize(("state", "says"), [(TaskState.TASK_STATE_FAILED, "ended failed: no stock"),
                                             (TaskState.TASK_STATE_REJECTED, "ended rejected: no stock"),
                                             (TaskState.TASK_STATE_CANCELED, "ended canceled: no stock")])
def test_a_task_that_ends_without_an_answer_is_task_ended(state: Any, says: str) -> None:
    task = Task(id="t", context_id="c", status=TaskStatus(state=state, message=_msg("s", new_text_part("no\nstock"))))
    with pytest.raises(TaskEnded, match=f"A2A task t {says}$"):
        read_task(task, "u", "adk_type", set())


def test_a_completed_task_answers_with_its_new_artifacts_text() -> None:
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED),
                history=[_msg("u", new_text_part("hi"), role=Role.ROLE_USER), _msg("a", new_text_part("thinking"))],
                artifacts=[Artifact(artifact_id="n", parts=[new_text_part("the answer")])])
    reading = read_task(task, "u", "adk_type", set())
    assert (reading.text, reading.open_task_id) == ("the answer", None)
    no_artifact = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED),
                       history=list(task.history))
    assert read_task(no_artifact, "u", "adk_type", set()).text == "thinking"
