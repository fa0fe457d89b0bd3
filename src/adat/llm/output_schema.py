"""Structured outputs: the JSON schema sent with a request and the validation of the answer.

Answers are parsed tolerantly but never guessed: a bare JSON object, one in a Markdown fence or
one object inside prose is taken; prose with two different objects, or none, is invalid
(:func:`extract_json`). A role's output model may say what content it needs beyond its schema
(a ``content_problem()`` method): an answer that validates but names nothing is invalid too.

OpenAI's strict json_schema mode needs every object closed (``additionalProperties: false``),
every property listed as required and no ``$ref`` with sibling keys. :func:`response_schema`
rewrites a pydantic model's schema that way when it can; a model with a free-form mapping
(``dict[str, X]``) or a tuple cannot be strict, and is sent non-strict instead.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_CODE_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)
_MAX_ERROR_CHARS = 1500


class NotStrictable(Exception):
    """The schema uses something strict mode cannot express."""


class OutputInvalid(Exception):
    """The answer is not valid JSON or does not match the schema; the message says why."""


def schema_name(model: type[BaseModel]) -> str:
    """A name the API accepts (``^[A-Za-z0-9_-]{1,64}$``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64] or "output"


def response_schema(model: type[BaseModel]) -> tuple[dict[str, Any], bool]:
    """(schema, strict): the strict rewrite when possible, else the plain pydantic schema."""
    schema = model.model_json_schema()
    strict = copy.deepcopy(schema)
    try:
        _make_strict(strict, strict)
    except NotStrictable:
        return schema, False
    return strict, True


def _make_strict(node: Any, root: dict[str, Any]) -> None:
    if isinstance(node, list):
        for item in node:
            _make_strict(item, root)
        return
    if not isinstance(node, dict):
        return
    if "prefixItems" in node:
        raise NotStrictable("tuples")
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) > 1:
        # `{"$ref": ..., "description": ...}` is rejected in strict mode: inline the definition.
        node.pop("$ref")
        for key, value in _resolve(ref, root).items():
            node.setdefault(key, copy.deepcopy(value))
    properties = node.get("properties")
    if node.get("type") == "object" or properties is not None:
        if properties is None or node.get("additionalProperties") not in (None, False):
            raise NotStrictable("free-form object")
        node["additionalProperties"] = False
        node["required"] = list(properties)
    # Every property is required in strict mode, so defaults carry no meaning for the model.
    node.pop("default", None)
    # the definitions first: a $ref with siblings met later inlines the rewritten definition
    _make_strict([*(node.get("$defs") or {}).values(), *(node.get("properties") or {}).values(),
                  *(node[key] for key in ("items", "anyOf", "allOf", "oneOf") if key in node)], root)


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise NotStrictable(f"external $ref {ref}")
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    if not isinstance(target, dict):
        raise NotStrictable(f"$ref {ref} is not a schema")
    return target


def extract_json(content: str | None) -> Any:
    """The one JSON value an answer holds; raise :class:`OutputInvalid` saying why there is none.

    Tried in order: the whole reply; the body of each Markdown code fence (the only fence, or the
    only one that parses); each object or array starting in the prose (``raw_decode`` at each
    ``{``/``[``), taken only when exactly one distinct top-level value parses. Nothing is repaired.
    """
    if content is None or not content.strip():
        raise OutputInvalid("the reply was empty; a JSON object was expected")
    text = content.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first_error = exc
    found = []
    for body in _CODE_FENCE.findall(text):
        with contextlib.suppress(json.JSONDecodeError):  # a fence that holds no JSON is prose
            found.append(json.loads(body.strip()))
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise OutputInvalid(f"the reply holds {len(found)} fenced JSON values; exactly one was expected")
    values = _embedded_values(text)
    if len(values) == 1:
        return values[0]
    if len(values) > 1:
        raise OutputInvalid(f"the reply holds {len(values)} different JSON objects; exactly one was expected")
    raise OutputInvalid(f"not valid JSON: {first_error}")


def _embedded_values(text: str) -> list[Any]:
    """Distinct top-level JSON objects/arrays found in prose (a value inside another is not counted)."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    end = 0  # where the last value taken ends: a bracket before it is inside that value
    for bracket in re.finditer(r"[{\[]", text):
        if bracket.start() < end:
            continue
        with contextlib.suppress(json.JSONDecodeError):  # a bracket that opens no JSON is prose
            value, end = decoder.raw_decode(text, bracket.start())
            if value and value not in values:  # an empty one says nothing
                values.append(value)
    return values


def parse_output(content: str | None, model: type[T]) -> T:
    """Validate an answer into ``model``; raise :class:`OutputInvalid` with a short reason.

    The JSON is taken from the reply by :func:`extract_json`. A model with a ``content_problem()``
    method that returns a reason for a validated answer (an empty goal, a verdict naming no
    criterion) makes the answer invalid with that reason.
    """
    data = extract_json(content)
    try:
        result = model.model_validate(data)
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
        )
        raise OutputInvalid(f"JSON does not match the schema: {details}"[:_MAX_ERROR_CHARS]) from None
    check = getattr(result, "content_problem", None)
    problem = check() if callable(check) else None
    if problem:
        raise OutputInvalid(f"the answer carries no usable content: {problem}"[:_MAX_ERROR_CHARS])
    return result


def repair_message(reason: str) -> str:
    """The follow-up user message of the one repair attempt."""
    return (f"Your previous reply could not be used ({reason}). Reply again with only the corrected "
            "JSON object that matches the required schema: no prose, no code fences.")
