"""What one A2A answer says: the reply text, the tool calls behind it, and whether the task waits.

The ``a2a`` target (:mod:`adat.targets.a2a_target`) sends a user turn and gets back a ``Message``
or a ``Task``; this module reads it. The turn's parts are, in this order: for a ``Message``, its
parts; for a ``Task``, the agent messages of its history after the message adat sent (the working
status updates an agent published while it ran), the status message, and the artifacts not seen
in an earlier turn.

* **Text**: a Message's text parts; a Task's new artifacts' text parts, or else its status
  message's, or else those of the turn's last agent message in the history.
* **Tool calls** follow Google ADK's A2A convention (also kagent's and trpc-agent's): a DataPart
  whose metadata ``<tool_call_key>`` (default ``adk_type``) is ``function_call`` holds
  ``{"id", "name", "args"}``; one whose value is ``function_response`` holds ``{"id", "name",
  "response"}``. A response is paired with the call of the same id (or, without ids, the first
  unanswered call of the same name); a ``response`` object with a non-empty ``error`` is the
  call's error. Numbers come back as JSON numbers: protobuf stores them as doubles, so a whole
  number is read as an int.
* **State**: ``completed`` ends the task; ``input-required`` is a turn like any other (the agent
  asks the user something) and the next user turn continues the same task; ``failed``,
  ``rejected``, ``canceled`` and ``auth-required`` are errors of this execution (:class:`TaskEnded`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from a2a.types import Message, Part, Role, Task, TaskState
from google.protobuf import json_format

from adat import redaction
from adat.records import AgentToolCall
from adat.targets.transport import one_line

FUNCTION_CALL = "function_call"
FUNCTION_RESPONSE = "function_response"

#: states in which the agent is still at work: the target polls the task until it leaves them
RUNNING = frozenset({TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING})
#: states that end the execution with an error, by the name A2A gives them
FAILED = {TaskState.TASK_STATE_FAILED: "failed", TaskState.TASK_STATE_REJECTED: "rejected",
          TaskState.TASK_STATE_CANCELED: "canceled", TaskState.TASK_STATE_AUTH_REQUIRED: "auth-required",
          TaskState.TASK_STATE_UNSPECIFIED: "in no state"}


class TaskEnded(Exception):
    """The task ended without an answer (failed, rejected, canceled, or needs authentication)."""


@dataclass
class TurnReading:
    """One answer, read: the reply text, its tool calls, and the task a next turn continues (if any)."""

    text: str
    tool_calls: list[AgentToolCall]
    context_id: str = ""
    open_task_id: str | None = None
    artifact_ids: set[str] = field(default_factory=set)


def read_message(message: Message, tool_call_key: str | None) -> TurnReading:
    """A direct Message answer (no task)."""
    return TurnReading(text=_text(message.parts), tool_calls=tool_calls(message.parts, tool_call_key),
                       context_id=message.context_id)


def read_task(task: Task, sent_message_id: str, tool_call_key: str | None, seen_artifacts: set[str]) -> TurnReading:
    """A Task answer that has left the running states; raises :class:`TaskEnded` for a failed one.

    ``seen_artifacts`` are the artifact ids earlier turns of the same task already reported.
    """
    state = task.status.state
    status_text = _text(task.status.message.parts) if task.status.HasField("message") else ""
    if state in FAILED:
        why = f": {one_line(status_text)}" if status_text else " (no status message)"
        hint = " (the agent wants credentials: set target.headers)" if state == TaskState.TASK_STATE_AUTH_REQUIRED else ""
        raise TaskEnded(f"A2A task {task.id} ended {FAILED[state]}{why}{hint}")
    turn = _turn_messages(task, sent_message_id)
    new_artifacts = [a for a in task.artifacts if a.artifact_id not in seen_artifacts]
    parts = [p for m in turn for p in m.parts]
    status_id = task.status.message.message_id
    if task.status.HasField("message") and not (status_id and status_id in {m.message_id for m in turn}):
        parts += list(task.status.message.parts)  # unless an agent also put it in the history: counted once
    parts += [p for a in new_artifacts for p in a.parts]
    text = (_text([p for a in new_artifacts for p in a.parts]) or status_text
            or next((t for t in (_text(m.parts) for m in reversed(turn)) if t), ""))
    waiting = state == TaskState.TASK_STATE_INPUT_REQUIRED
    return TurnReading(text=text, tool_calls=tool_calls(parts, tool_call_key), context_id=task.context_id,
                       open_task_id=task.id if waiting else None,
                       artifact_ids={a.artifact_id for a in task.artifacts})


def tool_calls(parts: list[Part], key: str | None) -> list[AgentToolCall]:
    """The tool calls the DataParts among ``parts`` report, in the order of their calls."""
    if key is None:
        return []
    calls: list[dict[str, Any]] = []
    for part in parts:
        if not part.HasField("data"):
            continue
        kind = json_format.MessageToDict(part.metadata).get(key) if part.HasField("metadata") else None
        if kind not in (FUNCTION_CALL, FUNCTION_RESPONSE):
            continue
        data = _plain(json_format.MessageToDict(part.data))
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
            continue  # not the convention's shape: an agent's own data, not a tool call
        if kind == FUNCTION_CALL:
            args = data.get("args")
            calls.append({"id": data.get("id"), "name": data["name"], "args": args if isinstance(args, dict) else {},
                          "answered": False, "response": None})
        else:
            _answer(calls, data)
    return [_record(c, order) for order, c in enumerate(calls)]


def _answer(calls: list[dict[str, Any]], data: dict[str, Any]) -> None:
    """Pair a function_response with its call (same id, else the first unanswered one of that name)."""
    call_id = data.get("id")
    match = next((c for c in calls if not c["answered"] and call_id and c["id"] == call_id), None) or \
        next((c for c in calls if not c["answered"] and c["name"] == data["name"] and not (call_id and c["id"])), None)
    if match is None:  # a result whose call was not reported: keep it, with no arguments
        match = {"id": call_id, "name": data["name"], "args": {}}
        calls.append(match)
    match.update(answered=True, response=data.get("response"))


def _record(call: dict[str, Any], order: int) -> AgentToolCall:
    response = call.get("response")
    error = response.get("error") if isinstance(response, dict) else None
    error_text = None if error in (None, False, "") else (error if isinstance(error, str) else json.dumps(error))
    # header secrets an agent echoes never reach the tables
    return AgentToolCall.make(call["name"], redaction.scrub_value(call["args"]),
                              None if error_text else redaction.scrub_value(response),
                              error=None if error_text is None else redaction.scrub(error_text), order=order)


def _turn_messages(task: Task, sent_message_id: str) -> list[Message]:
    """The agent messages of the history after the user message adat sent this turn (none if absent)."""
    history = list(task.history)
    start = next((i for i, m in enumerate(history) if m.message_id == sent_message_id), None)
    if start is None:
        return []
    return [m for m in history[start + 1:] if m.role != Role.ROLE_USER]


def _text(parts: Any) -> str:
    return "\n".join(p.text for p in parts if p.HasField("text") and p.text)


def _plain(value: Any) -> Any:
    """JSON from a protobuf Value, whole numbers as ints (protobuf keeps every number as a double)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value
