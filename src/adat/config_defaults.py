"""``adat config show-defaults``: every run-config setting with its default and its description.

The output is YAML a user can copy into a run config: each setting is a ``key: value`` line under
its description as a ``#`` comment, nested sections indented. Where a section is one of several
kinds (``target``, ``selector``), the default kind is written out and every other kind follows as
a commented-out block, so every field of every kind is listed once. Loading the output gives
exactly :class:`adat.config.RunConfig`'s defaults (``tests/test_config_defaults.py``).
"""

from __future__ import annotations

import textwrap
import types
from typing import Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from adat.config import RunConfig
from adat.yaml_io import MAX_YAML_BYTES, MAX_YAML_NODES

WIDTH = 100
KIND_FIELDS = ("type", "name")


def _kinds(info: FieldInfo) -> tuple[type[BaseModel], ...]:
    """The models of a discriminated-union field (``target``, ``selector``); () for any other."""
    annotation = info.annotation
    if get_origin(annotation) in (Union, types.UnionType):
        models = tuple(a for a in get_args(annotation) if isinstance(a, type) and issubclass(a, BaseModel))
        return models if len(models) > 1 else ()
    return ()


def _scalar(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10_000).strip().removesuffix("\n...").strip()


def _comment(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(text, WIDTH - len(indent) - 2)]


def _model_lines(model: BaseModel, indent: str, mark: str = "") -> list[str]:
    """The model's settings; with ``mark`` ``"# "`` commented out, so that uncommenting its lines
    keeps the nesting (a nested section of a commented-out kind, e.g. ``target.otlp``)."""
    lines: list[str] = []
    for name, info in _kind_first(type(model)):
        value = getattr(model, name)
        lines += _comment(info.description or "", indent + mark)
        if isinstance(value, BaseModel):
            lines.append(f"{indent}{mark}{name}:")
            lines += _model_lines(value, indent + "  ", mark)
            for other in _kinds(info):
                if not isinstance(value, other):
                    lines += _other_kind(other, type(value).model_fields, indent + "  ")
        else:
            lines.append(f"{indent}{mark}{name}: {_scalar(value)}")
    return lines


def _kind_first(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    """The model's fields, the kind (``type`` / ``name`` of a union section) first."""
    return sorted(model.model_fields.items(), key=lambda item: item[0] not in KIND_FIELDS)


def _other_kind(model: type[BaseModel], shown: dict[str, FieldInfo], indent: str) -> list[str]:
    """Another kind of a union section, commented out: its kind (every value it takes) and the
    fields the default kind does not show as they are here, with their defaults (``...``: required)."""
    head = " ".join((model.__doc__ or model.__name__).split()).split(". ")[0].rstrip(".")
    lines = [""] + _comment(f"--- or {head}:", indent)
    for name, info in _kind_first(model):
        same = name in shown and (shown[name].description, shown[name].default) == (info.description, info.default)
        if same and name not in KIND_FIELDS:
            continue
        lines += _comment(info.description or "", indent + "# ")
        if name in KIND_FIELDS:
            lines.append(f"{indent}# {name}: {' | '.join(str(c) for c in get_args(info.annotation))}")
        else:
            default = "..." if info.is_required() else info.get_default(call_default_factory=True)
            if isinstance(default, BaseModel):  # a section of its own (target.otlp): its fields, commented
                lines.append(f"{indent}# {name}:")
                lines += _model_lines(default, indent + "  ", "# ")
            else:
                lines.append(f"{indent}# {name}: {default if default == '...' else _scalar(default)}")
    return lines


def commented_defaults() -> str:
    """Every setting of a run config with its default, described (see the module docstring)."""
    lines = ["# adat run config: every setting with its default (adat config show-defaults).",
             "# Keep the lines you change; a missing setting takes its default.",
             f"# Limits: UTF-8, at most {MAX_YAML_BYTES // 1024} KB (Prefect's parameter limit), no key twice, aliases "
             f"expanding to at most {MAX_YAML_NODES:,} values; counts state their bounds below."]
    lines += _model_lines(RunConfig(), "")
    return "\n".join(lines) + "\n"
