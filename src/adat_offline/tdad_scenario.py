"""offline/heuristic TestSmith, part 1: the situation a decision-tree path describes.

From the spec (read at run time) and one root-to-leaf path it builds a :class:`Scenario`: the
user's intent and the fields the path's nodes ask for, the confirmation turns, and tool outputs
sampled from each tool's output schema and then set so that every branch condition taken holds
(and every earlier sibling condition of an ``otherwise`` branch does not). Conditions it cannot
tie to a tool output or to the user are left alone.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from adat.contracts.tdad_spec import Spec
from adat.contracts.testsmith_roles import PathStep
from adat_offline.tdad_text import Atom, literal, overlap, parse_condition, words

NEGATIVE_VALUES = ("false", "failed", "denied", "error", "rejected", "not_found")
PRIVACY_WORDS = frozenset({"pii", "private", "privacy", "reveal", "personal", "confidential"})


@dataclass
class Scenario:
    intent: str = ""
    conflicting: bool = False
    fields: list[str] = field(default_factory=list)
    confirm_turn: str = ""  # "yes" / "no" when a branch waits on the user's confirmation
    confirm_node: str = ""  # the node that asks
    extra_turn_node: str = ""  # a node whose branch holds only after one more user turn
    outputs: dict[str, Any] = field(default_factory=dict)  # tool -> output object
    numeric: list[tuple[Atom, bool]] = field(default_factory=list)  # (atom, holds) numeric conditions
    negative_tools: set[str] = field(default_factory=set)  # tools whose output sent the path to a refusal
    canaries: list[str] = field(default_factory=list)
    user_flags: list[str] = field(default_factory=list)  # conditions only the user's words can make hold
    unrealizable: bool = False  # a condition taken needs something no tool output or user turn can say


def value_for(name: str, seed: int) -> str:
    """A deterministic value for a field the user states (digits when the name has digits)."""
    n = 100 + seed % 900
    digits = "".join(ch for ch in name if ch.isdigit())
    if digits:
        return str(4000 + seed % 6000)[: int(digits)] if int(digits) <= 4 else str(n).zfill(int(digits))
    if name in ("zip", "postal_code", "postcode"):
        return str(10000 + seed % 89999)
    stem = "".join(w[:3] for w in words(name.removesuffix("_id"))).upper() or "ID"
    return f"{stem}-{n}"


def _input_value(name: str, prop: Any, seed: int) -> str:
    prop = prop if isinstance(prop, dict) else {}
    if prop.get("enum"):
        return str(prop["enum"][seed % len(prop["enum"])])
    if prop.get("type") in ("number", "integer"):
        return str(10 + seed % 90)
    return value_for(name, seed)


def sample(schema: Any, key: str, values: dict[str, str]) -> Any:
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {k: sample(v, k, values) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [sample(schema.get("items") or {}, key, values)]
    if kind == "boolean":
        return True
    if kind == "integer":
        return 1
    if kind == "number":
        return 10.0
    if schema.get("enum"):
        return schema["enum"][0]
    return values.get(key, f"{key}-1")


def _holders(obj: Any, name: str) -> list[dict[str, Any]]:
    """Every dict (nested, first array items included) that has key ``name``."""
    out = []
    if isinstance(obj, dict):
        if name in obj:
            out.append(obj)
        for v in obj.values():
            out += _holders(v, name)
    elif isinstance(obj, list) and obj:
        out += _holders(obj[0], name)
    return out


def locate(outputs: dict[str, Any], atom_lhs: str) -> list[dict[str, Any]]:
    """The output dicts holding ``a.b.name``'s ``name``, preferring tools named like ``a.b``."""
    name = atom_lhs.rsplit(".", 1)[-1]
    prefix = atom_lhs.rsplit(".", 1)[0] if "." in atom_lhs else ""
    found = [(tool, h) for tool, out in outputs.items() for h in _holders(out, name)]
    if prefix and len(found) > 1:
        best = max(overlap(prefix, tool) for tool, _ in found)
        found = [(t, h) for t, h in found if overlap(prefix, t) == best]
    return [h for _, h in found]


def tool_of(outputs: dict[str, Any], atom_lhs: str) -> str:
    """The tool whose output holds what ``atom_lhs`` names ('' when none)."""
    name = atom_lhs.rsplit(".", 1)[-1]
    holders = locate(outputs, atom_lhs)
    for tool, out in outputs.items():
        if any(h is x for h in holders for x in _holders(out, name)):
            return tool
    return ""


def _set(outputs: dict[str, Any], atom: Atom, holds: bool, delta: int) -> bool:
    """Make ``atom`` hold (or not); False when it names nothing in the outputs."""
    lhs = locate(outputs, atom.lhs)
    if not lhs:
        return False
    if atom.op in (">", ">=", "<", "<="):
        rhs = locate(outputs, atom.rhs)
        base = rhs[0][atom.rhs.rsplit(".", 1)[-1]] if rhs else literal(atom.rhs)
        base = base if isinstance(base, int | float) and not isinstance(base, bool) and base > 1 else 30
        for h in rhs:
            h[atom.rhs.rsplit(".", 1)[-1]] = base
        greater = atom.op in (">", ">=")
        edge = 0 if atom.op in (">=", "<=") else 1
        if holds:
            value = base + (delta if delta > 1 else edge) if greater else base - (delta if delta > 1 else edge)
        else:
            value = base - (delta if delta > 1 else 0) if greater else base + (delta if delta > 1 else 0)
        for h in lhs:
            h[atom.name] = value
        return True
    wanted = literal(atom.rhs)
    positive = (atom.op == "==") == holds
    for h in lhs:
        current = h[atom.name]
        if isinstance(wanted, bool):
            h[atom.name] = wanted if positive else not wanted
        elif positive:
            h[atom.name] = wanted
        elif current == wanted:
            h[atom.name] = f"not_{wanted}"
    return True


def build(spec: Spec, path: list[PathStep], *, seed: int, delta: int = 5) -> Scenario:
    """The scenario of ``path``; ``delta`` is how far numeric values sit from a threshold (1 = edge)."""
    sc = Scenario()
    values: dict[str, str] = {}
    for tool in spec.tools:
        for name, prop in tool.input_properties().items():
            values.setdefault(name, _input_value(name, prop, seed))
    for name in spec.action_tools():
        spec_tool = spec.tool(name)
        sc.outputs[name] = sample(spec_tool.output_schema if spec_tool else {}, name, values) or {}
    intents: list[str] = []
    tools_so_far: list[str] = []
    for step in path:
        node = spec.node(step.node_id)
        if node is None:
            continue
        tools_so_far += node.requirements.must_call_tools_in_order
        for f in [*node.requirements.if_missing_fields, *node.requirements.must_have,
                  *_user_inputs(spec, node.requirements.must_call_tools_in_order)]:
            if f not in sc.fields:
                sc.fields.append(f)
        if not step.when:
            continue
        for branch in node.branches:  # earlier siblings of the taken branch must not hold
            if branch.when == step.when and branch.next == step.next:
                break
            for atom in parse_condition(branch.when) or []:
                if len(parse_condition(branch.when) or []) == 1 and atom.name != "intent":
                    _set(sc.outputs, atom, False, delta)
        for atom in parse_condition(step.when) or []:
            if atom.name == "intent":
                if atom.op == "==":
                    intents.append(atom.rhs)
                if atom.rest:
                    sc.extra_turn_node = step.node_id
            elif "confirm" in atom.name:
                sc.confirm_turn, sc.confirm_node = str(literal(atom.rhs)).lower(), step.node_id
            elif _set(sc.outputs, atom, True, delta) or _attach(spec, sc.outputs, atom, tools_so_far):
                if atom.op in (">", ">=", "<", "<="):
                    sc.numeric.append((atom, True))
                elif atom.rhs.lower() in NEGATIVE_VALUES:
                    sc.negative_tools.add(tool_of(sc.outputs, atom.lhs))
            elif atom.op == "==" and atom.rhs.lower() == "true" and not tools_so_far:
                sc.user_flags.append(atom.lhs.replace("_", " ").replace(".", " "))
            elif not (atom.op == "==" and atom.rhs.lower() == "false"):  # what no output says is false
                sc.unrealizable = True
    sc.intent = intents[-1] if intents else ""
    sc.conflicting = len(set(intents)) > 1
    _plant_canaries(spec, sc)
    sc.outputs = copy.deepcopy(sc.outputs)
    values_used = {f: values.get(f, value_for(f, seed)) for f in sc.fields}
    sc.fields = [f"{f}={v}" for f, v in values_used.items()]
    return sc


def _output_names(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        props = schema.get("properties") or {}
        names = set(props) if isinstance(props, dict) else set()
        for sub in [*(props.values() if isinstance(props, dict) else []), schema.get("items")]:
            names |= _output_names(sub)
        return names
    return set()


def _user_inputs(spec: Spec, tools: list[str]) -> list[str]:
    """Required inputs of ``tools`` that no other tool's output holds: the user has to say them."""
    out = []
    for name in tools:
        tool = spec.tool(name)
        if tool is None:
            continue
        produced = set().union(*(_output_names(t.output_schema) for t in spec.tools if t.name != name))
        for arg in tool.input_schema.get("required") or []:
            prop = tool.input_properties().get(arg) or {}
            scalar = not (isinstance(prop, dict) and prop.get("type") == "object" and not prop.get("properties"))
            if arg not in produced and scalar:
                out.append(arg)
    return out


def _attach(spec: Spec, outputs: dict[str, Any], atom: Atom, tools: list[str]) -> bool:
    """State an outcome no output field names (``item_found == true``) as a flag in the output
    of the tool called so far that it is most about (else the last one); False when none was."""
    if atom.op not in ("==", "!=") or not tools:
        return False
    def about(tool: str) -> int:
        t = spec.tool(tool)
        props = " ".join((t.output_schema.get("properties") or {}) if t else [])
        return overlap(atom.lhs, f"{tool} {props}")
    tool = max(reversed([t for t in tools if t in outputs]), key=about, default="")
    if not tool or not isinstance(outputs[tool], dict):
        return False
    wanted = literal(atom.rhs)
    outputs[tool][atom.name] = wanted if atom.op == "==" else (not wanted if isinstance(wanted, bool) else f"not_{wanted}")
    return True


def _private_objects(spec: Spec) -> dict[str, list[str]]:
    """tool -> names of output objects the spec says must never be shown."""
    privacy = [p.text for p in spec.policies if set(words(p.text)) & PRIVACY_WORDS]
    policy_words = {w for text in privacy for w in re.findall(r"[a-z0-9_]+", text.lower())}
    out: dict[str, list[str]] = {}
    for tool in spec.tools:
        for name, prop in ((tool.output_schema or {}).get("properties") or {}).items():
            if not isinstance(prop, dict) or "properties" not in prop:
                continue
            desc = str(prop.get("description", "")).lower()
            if ("never" in desc and ("shown" in desc or "reveal" in desc)) or name.lower() in policy_words:
                out.setdefault(tool.name, []).append(name)
    return out


def _plant_canaries(spec: Spec, sc: Scenario) -> None:
    for tool, names in _private_objects(spec).items():
        for name in names:
            obj = sc.outputs.get(tool, {}).get(name)
            if not isinstance(obj, dict):
                continue
            for key in list(obj):
                canary = f"{key.upper()}_CANARY_{len(sc.canaries) + 1}"
                obj[key] = canary
                sc.canaries.append(canary)


def private_fields(spec: Spec) -> list[str]:
    """Sub-field names of the never-shown objects (what a user asking for private data names)."""
    out = []
    for tool, names in _private_objects(spec).items():
        t = spec.tool(tool)
        for name in names:
            props = ((t.output_schema if t else {}).get("properties") or {}).get(name, {}).get("properties") or {}
            out += [k for k in props if k not in out]
    return out
