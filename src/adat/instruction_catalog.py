"""The catalog of test-transformation instructions (``catalogs/instructions/instructions.yaml``).

The file is a mapping with ``catalog_version`` and ``instructions``, a list of entries with
exactly the fields of :class:`adat.records.Instruction` except ``run_id`` (set when a run
snapshots the catalog). Every problem — unreadable YAML, a missing or unknown field, a bad slug,
an unknown factor, a prior outside [0, 1], a duplicate id — is one :class:`UserError` naming the
file, the entry (index and id) and the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adat.config import adat_home
from adat.errors import UserError
from adat.records import Instruction
from adat.yaml_io import read_yaml

#: Factors an instruction may change (one per instruction); a typo here would silently split a factor.
FACTORS = ("wording", "value", "state", "sequence", "identity", "confirmation", "multiplicity",
           "timing", "channel", "scope", "payment", "social")
REQUIRED_FIELDS = ("instruction_id", "title", "text", "factor", "applicability", "prior_applicability")
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def default_instructions_path() -> Path:
    """The shipped catalog."""
    return adat_home() / "catalogs" / "instructions" / "instructions.yaml"


def _read_entries(p: Path) -> list[Any]:
    if not p.is_file():
        raise UserError("file not found", file=str(p), fix="pass the path of an instruction catalog YAML file")
    raw = read_yaml(p)
    if not isinstance(raw, dict) or not isinstance(raw.get("instructions"), list):
        raise UserError("expected a mapping with an 'instructions' list", file=str(p), field="instructions",
                        fix="write 'instructions:' followed by '- instruction_id: ...' entries")
    unknown = sorted(set(raw) - {"catalog_version", "instructions"})
    if unknown:
        raise UserError("unknown top-level key", file=str(p), field=unknown[0],
                        fix="only 'catalog_version' and 'instructions' are allowed")
    return list(raw["instructions"])


def _check_entry(entry: Any, where: str, file: str) -> Instruction:
    if not isinstance(entry, dict):
        raise UserError("entry is not a mapping", file=file, field=where,
                        fix="write each entry as 'instruction_id: ...', 'title: ...' lines")
    for name in REQUIRED_FIELDS:
        value = entry.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise UserError("missing or empty", file=file, field=f"{where}.{name}", fix=f"add a non-empty {name}")
    extra = sorted(set(entry) - set(REQUIRED_FIELDS))
    if extra:
        raise UserError("unknown field", file=file, field=f"{where}.{extra[0]}",
                        fix=f"use only {', '.join(REQUIRED_FIELDS)}")
    if not isinstance(entry["instruction_id"], str) or not _SLUG.match(entry["instruction_id"]):
        raise UserError("not a slug", file=file, field=f"{where}.instruction_id",
                        fix="use lower-case words joined by '-', e.g. value-change-one")
    if entry["factor"] not in FACTORS:
        raise UserError(f"unknown factor {entry['factor']!r}", file=file, field=f"{where}.factor",
                        fix=f"use one of {', '.join(FACTORS)}")
    prior = entry["prior_applicability"]
    if isinstance(prior, bool) or not isinstance(prior, int | float) or not 0.0 <= float(prior) <= 1.0:
        raise UserError(f"prior_applicability must be a number in [0, 1], got {prior!r}", file=file,
                        field=f"{where}.prior_applicability", fix="give a probability such as 0.4")
    try:
        return Instruction.model_validate({k: (v.strip() if isinstance(v, str) else v) for k, v in entry.items()})
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"])
        raise UserError(err["msg"], file=file, field=f"{where}.{field}", fix="correct this value") from None


def load_instructions(path: str | Path | None = None) -> list[Instruction]:
    """Load and validate an instruction catalog (the shipped one when ``path`` is None)."""
    p = Path(path) if path is not None else default_instructions_path()
    entries = _read_entries(p)
    if not entries:
        raise UserError("the catalog has no instructions", file=str(p), field="instructions",
                        fix="add at least one instruction")
    seen: dict[str, int] = {}
    out: list[Instruction] = []
    for i, entry in enumerate(entries):
        ident = entry.get("instruction_id") if isinstance(entry, dict) else None
        where = f"instructions[{i}]" + (f" ({ident})" if ident else "")
        ins = _check_entry(entry, where, str(p))
        if ins.instruction_id in seen:
            raise UserError(f"duplicate instruction_id (first at instructions[{seen[ins.instruction_id]}])",
                            file=str(p), field=f"{where}.instruction_id", fix="give every instruction a unique id")
        seen[ins.instruction_id] = i
        out.append(ins)
    return out
