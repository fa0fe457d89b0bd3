"""Reading the YAML files users write (run configs, catalogs, prompts, rules, faults)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from adat.errors import UserError

T = TypeVar("T")

#: libyaml's loader when PyYAML was built with it (same documents, several times faster)
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> Any:
    """Parse ``path``; a syntax error is a one-line :class:`UserError` naming the file and line."""
    try:
        return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        raise UserError("not valid YAML", file=str(path), field=where, fix="correct the YAML syntax") from None


#: what :func:`parsed_once` parsed, by (parser, resolved path, sha256 of the file's bytes)
_PARSED: dict[tuple[str, str, str], Any] = {}
_PARSED_LIMIT = 64


def parsed_once(path: Path, parse: Callable[[Path], T]) -> T:
    """``parse(path)``, reused while the file's bytes are unchanged (an edit parses it again).

    For files many objects of a run load (the rule table, fault files): the caller hands out a
    copy when its result may be changed."""
    key = (f"{parse.__module__}.{parse.__qualname__}", str(Path(path).resolve()),
           hashlib.sha256(Path(path).read_bytes()).hexdigest())
    if key not in _PARSED:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[key] = parse(path)
    return _PARSED[key]  # type: ignore[no-any-return]
