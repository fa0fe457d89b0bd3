"""Reading the YAML files users write (run configs, catalogs, prompts, rules, faults)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from adat.errors import UserError

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
