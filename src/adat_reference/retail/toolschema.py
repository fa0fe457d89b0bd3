"""OpenAI function-tool schemas from a tool's signature and docstring (one source of truth).

A tool is a typed method whose docstring has a summary and a Google-style ``Args:`` section.
The summary becomes the function description, each ``Args`` entry the parameter description,
and each type hint the parameter's JSON-schema type. The same signature validates the
arguments of a call, so what the model is told and what the tool accepts cannot drift.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

from pydantic import TypeAdapter, ValidationError

from adat.errors import ToolError

ToolKind = Literal["read", "write", "generic"]
_F = TypeVar("_F", bound=Callable[..., str])
_KIND_ATTR = "__adat_tool_kind__"


def tool(kind: ToolKind) -> Callable[[_F], _F]:
    """Mark a method as a tool of the given kind (``write`` tools change the database)."""

    def mark(fn: _F) -> _F:
        setattr(fn, _KIND_ATTR, kind)
        return fn

    return mark


def tool_kinds(cls: type) -> dict[str, ToolKind]:
    """Tool name -> kind for every marked method of ``cls``, base classes' tools first."""
    kinds: dict[str, ToolKind] = {}
    for klass in reversed(cls.__mro__):
        for name, fn in vars(klass).items():
            kind = getattr(fn, _KIND_ATTR, None)
            if kind is not None:
                kinds[name] = kind
    return kinds


_SECTIONS = ("Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:", "Note:")
_ARG_LINE = re.compile(r"^(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def shared_args(entries: Mapping[str, str]) -> Callable[[_F], _F]:
    """Append the same ``Args`` entries to the docstring of every tool that takes those arguments.

    Tools sharing a group of arguments (the six address fields) describe them once; the entries
    land in ``__doc__`` itself, so the schema, :func:`parse_docstring` and ``help()`` still read
    one docstring. The tool's ``Args:`` section must come last, since the entries are appended.
    """

    def extend(fn: _F) -> _F:
        lines = inspect.cleandoc(fn.__doc__ or "").splitlines()
        headers = [i for i, line in enumerate(lines) if line.strip() in _SECTIONS]
        if not headers or lines[headers[-1]].strip() not in ("Args:", "Arguments:"):
            raise TypeError(f"{fn.__name__}: shared_args needs the docstring to end with an Args: section")
        first_entry = next((line for line in lines[headers[-1] + 1:] if line.strip()), "    ")
        indent = first_entry[: len(first_entry) - len(first_entry.lstrip())]
        fn.__doc__ = "\n".join([*lines, *(f"{indent}{name}: {text}" for name, text in entries.items())])
        return fn

    return extend


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {argument: description}).

    The description is the text before the first section header, with lines joined by
    spaces; an argument's continuation lines (indented deeper) are appended to it.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    args: dict[str, list[str]] = {}
    section: str | None = None
    current: str | None = None
    arg_indent = 0
    for line in lines:
        stripped = line.strip()
        if stripped in _SECTIONS:
            section, current = stripped, None
            continue
        if section is None:
            summary.append(stripped)
        elif section in ("Args:", "Arguments:") and stripped:
            indent = len(line) - len(line.lstrip())
            match = _ARG_LINE.match(stripped)
            if match and (current is None or indent <= arg_indent):
                current, arg_indent = match.group(1), indent
                args[current] = [match.group(2)]
            elif current is not None:
                args[current].append(stripped)
    description = " ".join(" ".join(summary).split())
    return description, {name: " ".join(" ".join(parts).split()) for name, parts in args.items()}


def json_schema_for(annotation: Any) -> dict[str, Any]:
    """JSON-schema fragment for a type hint (str, int, float, bool, list[...], dict, Optional)."""
    origin = typing.get_origin(annotation)
    if annotation is str:
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if origin in (list, tuple, set, frozenset):
        (inner, *_) = typing.get_args(annotation) or (str,)
        return {"type": "array", "items": json_schema_for(inner)}
    if annotation is dict or origin is dict:
        return {"type": "object"}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return json_schema_for(options[0])
        return {"anyOf": [json_schema_for(a) for a in options]}
    if origin is typing.Literal:
        values = list(typing.get_args(annotation))
        return {**json_schema_for(type(values[0])), "enum": values}
    raise TypeError(f"no JSON-schema type for annotation {annotation!r}")


@functools.cache
def _parameters(fn: Callable[..., Any]) -> tuple[tuple[inspect.Parameter, Any], ...]:
    """(parameter, type hint) pairs of a tool, ``self`` left out; an untyped parameter is a string."""
    hints = typing.get_type_hints(fn)
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    return tuple((p, hints.get(p.name, str)) for p in params)


@functools.cache
def _adapter(hint: Any) -> TypeAdapter[Any]:
    return TypeAdapter(hint)


def function_schema(fn: Callable[..., Any], name: str | None = None) -> dict[str, Any]:
    """The OpenAI ``{"type": "function", "function": {...}}`` schema of one tool."""
    description, arg_docs = parse_docstring(fn.__doc__)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param, hint in _parameters(fn):
        prop = json_schema_for(hint)
        if param.name in arg_docs:
            prop["description"] = arg_docs[param.name]
        properties[param.name] = prop
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    return {
        "type": "function",
        "function": {
            "name": name or fn.__name__,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required,
                           "additionalProperties": False},
        },
    }


def bind_arguments(fn: Callable[..., Any], name: str, arguments: Any) -> dict[str, Any]:
    """Check a call's arguments against the tool's signature; return them validated.

    Missing or unexpected arguments and values of the wrong type raise :class:`ToolError`
    naming the tool and the argument, which is what an agent needs to correct its call.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError(f"{name}: arguments must be a JSON object, got {type(arguments).__name__}")
    params = _parameters(fn)
    known = {p.name for p, _ in params}
    unexpected = sorted(set(arguments) - known)
    if unexpected:
        raise ToolError(f"{name}: unexpected argument(s) {', '.join(unexpected)}; "
                        f"expected {', '.join(sorted(known)) or 'none'}")
    bound: dict[str, Any] = {}
    for param, hint in params:
        if param.name not in arguments:
            if param.default is inspect.Parameter.empty:
                raise ToolError(f"{name}: missing required argument '{param.name}'")
            continue
        try:
            bound[param.name] = _adapter(hint).validate_python(arguments[param.name], strict=True)
        except ValidationError as exc:
            expected = json_schema_for(hint).get("type", "value")
            raise ToolError(f"{name}: argument '{param.name}' must be {expected}, "
                            f"got {arguments[param.name]!r} ({exc.errors()[0]['msg']})") from None
    return bound
