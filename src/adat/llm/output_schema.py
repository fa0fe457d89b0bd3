"""Structured outputs: the JSON schema sent with a request and the validation of the answer.

OpenAI's strict json_schema mode needs every object closed (``additionalProperties: false``),
every property listed as required and no ``$ref`` with sibling keys. :func:`response_schema`
rewrites a pydantic model's schema that way when it can; a model with a free-form mapping
(``dict[str, X]``) or a tuple cannot be strict, and is sent non-strict instead.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_CODE_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)
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
    for key in ("$defs", "properties"):
        for sub in (node.get(key) or {}).values():
            _make_strict(sub, root)
    for key in ("items", "anyOf", "allOf", "oneOf"):
        if key in node:
            _make_strict(node[key], root)


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise NotStrictable(f"external $ref {ref}")
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    if not isinstance(target, dict):
        raise NotStrictable(f"$ref {ref} is not a schema")
    return target


def parse_output(content: str | None, model: type[T]) -> T:
    """Validate an answer into ``model``; raise :class:`OutputInvalid` with a short reason.

    A reply wrapped in a Markdown code fence is accepted (many local models add one).
    """
    if content is None or not content.strip():
        raise OutputInvalid("the reply was empty; a JSON object was expected")
    text = content.strip()
    fenced = _CODE_FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OutputInvalid(f"not valid JSON: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
        )
        raise OutputInvalid(f"JSON does not match the schema: {details}"[:_MAX_ERROR_CHARS]) from None


def repair_message(reason: str) -> str:
    """The follow-up user message of the one repair attempt."""
    return (f"Your previous reply could not be used ({reason}). Reply again with only the corrected "
            "JSON object that matches the required schema: no prose, no code fences.")
