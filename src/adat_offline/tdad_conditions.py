"""offline/heuristic TestSmith: making one branch condition hold (or not) in sampled tool outputs.

A condition names output fields (``parcel.status``, ``a.b.name`` -- the output dict holding
``name``, preferring tools named like ``a.b``), how the step's tool call failed (``x.error ==
'unreachable'``) or a loop counter of the step's tool (``retries >= 1``, ``login_attempts < 3``);
see :class:`adat_offline.tdad_text.Atom`. This module sets output fields; failures and counters
are the scenario's (:mod:`adat_offline.tdad_scenario`), because they are fixtures and turns, not
fields. Nothing here knows a spec: enum values come from the output schemas read at run time.
"""

from __future__ import annotations

from typing import Any

from adat_offline.tdad_text import Atom, literal, overlap


def holders(obj: Any, name: str) -> list[dict[str, Any]]:
    """Every dict (nested, first array items included) that has key ``name``."""
    out = []
    if isinstance(obj, dict):
        if name in obj:
            out.append(obj)
        for v in obj.values():
            out += holders(v, name)
    elif isinstance(obj, list) and obj:
        out += holders(obj[0], name)
    return out


def locate(outputs: dict[str, Any], atom_lhs: str) -> list[dict[str, Any]]:
    """The output dicts holding ``a.b.name``'s ``name``, preferring tools named like ``a.b``."""
    name = atom_lhs.rsplit(".", 1)[-1]
    prefix = atom_lhs.rsplit(".", 1)[0] if "." in atom_lhs else ""
    found = [(tool, h) for tool, out in outputs.items() for h in holders(out, name)]
    if prefix and len(found) > 1:
        best = max(overlap(prefix, tool) for tool, _ in found)
        found = [(t, h) for t, h in found if overlap(prefix, t) == best]
    return [h for _, h in found]


def tool_of(outputs: dict[str, Any], atom_lhs: str) -> str:
    """The tool whose output holds what ``atom_lhs`` names ('' when none)."""
    name = atom_lhs.rsplit(".", 1)[-1]
    found = locate(outputs, atom_lhs)
    for tool, out in outputs.items():
        if any(h is x for h in found for x in holders(out, name)):
            return tool
    return ""


def enum_values(schema: Any, out: dict[str, list[Any]] | None = None) -> dict[str, list[Any]]:
    """Field name -> the values its output schema enumerates (every tool, nested objects too)."""
    out = {} if out is None else out
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            if isinstance(prop, dict) and prop.get("enum"):
                out.setdefault(name, [v for v in prop["enum"] if v not in out.get(name, [])])
            enum_values(prop, out)
        enum_values(schema.get("items"), out)
    return out


def _other_value(name: str, current: Any, excluded: set[str], enums: dict[str, list[Any]]) -> Any:
    """A value for ``name`` that is none of ``excluded``: ``current``, else another enumerated one."""
    if str(current) not in excluded:
        return current
    for value in enums.get(name, []):
        if str(value) not in excluded:
            return value
    return f"not_{sorted(excluded)[0]}"


def set_atom(outputs: dict[str, Any], atom: Atom, holds: bool, delta: int, *,
             enums: dict[str, list[Any]] | None = None, excluded: dict[str, set[str]] | None = None) -> bool:
    """Make ``atom`` hold (or not) in ``outputs``; False when it names nothing in them.

    ``delta`` is how far a number sits from a limit (1 = at the edge); ``excluded`` gathers the
    values a field was told to differ from, so ``x != 'A' and x != 'B'`` picks a third value."""
    enums, excluded = enums or {}, excluded if excluded is not None else {}
    lhs = locate(outputs, atom.lhs)
    if not lhs:
        return False
    if atom.op in (">", ">=", "<", "<="):
        rhs = locate(outputs, atom.rhs)
        base = rhs[0][atom.rhs.rsplit(".", 1)[-1]] if rhs else atom.value
        base = base if isinstance(base, int | float) and not isinstance(base, bool) and base > 1 else 30
        for h in rhs:
            h[atom.rhs.rsplit(".", 1)[-1]] = base
        greater = atom.op in (">", ">=")
        edge = 0 if atom.op in (">=", "<=") else 1
        if holds:
            value = base + (delta if delta > 1 else edge) if greater else base - (delta if delta > 1 else edge)
        else:
            value = base - (delta if delta > 1 else 0) if greater else base + (delta if delta > 1 else 0)
            if greater and value < 0 <= base:  # counts and ages are never negative: the nearest side instead
                value = base - 1 if atom.op == ">=" else base
        for h in lhs:
            h[atom.name] = value
        return True
    wanted = atom.value if atom.quoted else literal(atom.rhs)
    positive = (atom.op == "==") == holds
    for h in lhs:
        current = h[atom.name]
        if isinstance(wanted, bool):
            h[atom.name] = wanted if positive else not wanted
        elif positive:
            h[atom.name] = wanted
            excluded.pop(atom.name, None)
        elif atom.quoted or atom.name in enums:
            gone = excluded.setdefault(atom.name, set())
            gone.add(str(wanted))
            h[atom.name] = _other_value(atom.name, current, gone, enums)
        elif current == wanted:
            h[atom.name] = f"not_{wanted}"
    return True
