"""offline/heuristic TestSmith, part 1: the situation a decision-tree path describes.

From the spec (read at run time) and one root-to-leaf path it builds a :class:`Scenario`: the
user's intent and the fields the path's nodes ask for, the confirmation turns, and tool outputs
sampled from each tool's output schema and then set so that every branch condition taken holds
(and every earlier sibling condition of an ``otherwise`` branch does not). Conditions it cannot
tie to a tool output or to the user are left alone.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from adat.contracts.tdad_spec import Spec
from adat.contracts.testsmith_roles import PathStep
from adat_offline.tdad_conditions import enum_values, locate, set_atom, tool_of
from adat_offline.tdad_privacy import asks_private, private_objects
from adat_offline.tdad_text import Atom, literal, overlap, parse_alternatives, words

NEGATIVE_VALUES = ("false", "failed", "denied", "error", "rejected", "not_found")


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
    failures: dict[str, str] = field(default_factory=dict)  # tool -> how its call fails (every time)
    calls: dict[str, int] = field(default_factory=dict)  # tool -> calls a loop counter needs
    retry_fields: list[str] = field(default_factory=list)  # inputs the user restates for another attempt


def value_for(name: str, seed: int) -> str:
    """A deterministic value for a field the user states (digits when the name has digits)."""
    n = 100 + seed % 900
    digits = "".join(ch for ch in name if ch.isdigit())
    if digits:
        return str(4000 + seed % 6000)[: int(digits)] if int(digits) <= 4 else str(n).zfill(int(digits))
    if name in ("zip", "postal_code", "postcode"):
        return str(10000 + seed % 89999)
    if "date" in words(name):  # a date, not a placeholder: an ISO day
        return f"2027-{1 + seed % 12:02d}-{1 + seed % 28:02d}"
    if "year" in words(name):  # a year, not a placeholder
        return str(1950 + seed % 50)
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


def build(spec: Spec, path: list[PathStep], *, seed: int, delta: int = 5) -> Scenario:
    """The scenario of ``path``; ``delta`` is how far numeric values sit from a threshold (1 = edge)."""
    sc = Scenario()
    values: dict[str, str] = {}
    for tool in spec.tools:
        for name, prop in tool.input_properties().items():
            values.setdefault(name, _input_value(name, prop, seed))
    enums: dict[str, list[Any]] = {}
    for name in spec.action_tools():
        spec_tool = spec.tool(name)
        sc.outputs[name] = sample(spec_tool.output_schema if spec_tool else {}, name, values) or {}
        enum_values(spec_tool.output_schema if spec_tool else {}, enums)
    excluded: dict[str, set[str]] = {}
    chosen, conflicting = _choose_alternatives(spec, path)
    intents: list[str] = [a.rhs for _, atoms in chosen for a in atoms if a.name == "intent" and a.op == "=="]
    tools_so_far: list[str] = []
    for step, (taken, atoms) in zip(path, chosen, strict=True):
        node = spec.node(step.node_id)
        if node is None:
            continue
        step_tools = list(node.requirements.must_call_tools_in_order)
        tools_so_far += step_tools
        for f in [*node.requirements.if_missing_fields, *node.requirements.must_have,
                  *_user_inputs(spec, step_tools)]:
            if f not in sc.fields:
                sc.fields.append(f)
        if not step.when:
            continue
        for branch in node.branches[:max(taken, 0)]:  # earlier siblings of the taken branch must not hold
            for alternative in parse_alternatives(branch.when) or []:
                _falsify(sc, alternative, atoms, delta, enums, excluded)
        for atom in atoms:
            if atom.name == "intent":
                if atom.rest:
                    sc.extra_turn_node = step.node_id
            elif "confirm" in atom.name and not atom.is_counter and not locate(sc.outputs, atom.lhs):  # yes / no
                sc.confirm_turn, sc.confirm_node = str(atom.value).lower(), step.node_id
            elif atom.is_error and step_tools:
                failing = _about(spec, atom, step_tools)
                if atom.op == "==" and atom.rhs:
                    sc.failures[failing] = atom.rhs
                    sc.negative_tools.add(failing)
            elif atom.is_counter and step_tools and not locate(sc.outputs, atom.lhs):
                _count(sc, spec, atom, step_tools, [*node.requirements.if_missing_fields, *node.requirements.must_have])
            elif set_atom(sc.outputs, atom, True, delta, enums=enums, excluded=excluded) \
                    or _attach(spec, sc.outputs, atom, tools_so_far):
                if atom.op in (">", ">=", "<", "<="):
                    sc.numeric.append((atom, True))
                elif atom.rhs.lower() in NEGATIVE_VALUES:
                    sc.negative_tools.add(tool_of(sc.outputs, atom.lhs))
            elif atom.op == "==" and atom.rhs.lower() == "true" and not tools_so_far:
                sc.user_flags.append(atom.lhs.replace("_", " ").replace(".", " "))
            elif not (atom.op == "==" and atom.rhs.lower() == "false"):  # what no output says is false
                sc.unrealizable = True
    sc.intent = intents[-1] if intents else ""
    sc.conflicting = conflicting
    if asks_private(spec, sc.intent):  # name the record, so the private data is one lookup away
        for holder in private_objects(spec):
            sc.fields += [f for f in _user_inputs(spec, [holder]) if f not in sc.fields]
    _plant_canaries(spec, sc)
    sc.outputs = copy.deepcopy(sc.outputs)
    values_used = {f: values.get(f, value_for(f, seed)) for f in sc.fields}
    sc.fields = [f"{f}={v}" for f, v in values_used.items()]
    return sc


def _choose_alternatives(spec: Spec, path: list[PathStep]) -> tuple[list[tuple[int, list[Atom]]], bool]:
    """Per step, the branch (index) and the alternative of its condition the scenario makes hold,
    and whether the path's intents conflict. Any branch of the step's node that leads to the same
    next node will do, and any alternative of its condition: the first whose ``intent`` agrees
    with the intents the path's other conditions fix and is none an earlier sibling of a later
    step names (``intent == 'a' or intent == 'b'`` before a step that needs ``b`` takes ``b``)."""
    options: list[list[tuple[int, list[Atom]]]] = []
    excluded: set[str] = set()
    for step in path:
        node = spec.node(step.node_id)
        branches = list(node.branches) if node else []
        same = [i for i, br in enumerate(branches) if br.next == step.next and step.when]
        taken = next((i for i, br in enumerate(branches) if br.when == step.when and br.next == step.next), -1)
        ordered = [taken, *(i for i in same if i != taken)] if taken >= 0 else same
        options.append([(i, alt) for i in ordered for alt in parse_alternatives(branches[i].when) or [[]]]
                       or [(-1, [])])
        for br in branches[:min(ordered, default=0)]:  # siblings before every branch that would do
            for alt in parse_alternatives(br.when) or []:
                if alt and all(x.name == "intent" and x.op == "==" for x in alt):
                    excluded |= {x.rhs for x in alt}
    fixed = {a.rhs for opts in options if len({i for i, _ in opts}) == 1 and len(opts) == 1
             for a in opts[0][1] if a.name == "intent" and a.op == "=="}

    def agrees(atoms: list[Atom]) -> bool:
        named = [a.rhs for a in atoms if a.name == "intent" and a.op == "=="]
        return all((not fixed or v in fixed) and v not in excluded for v in named)

    chosen = [next((o for o in opts if agrees(o[1])), opts[0]) for opts in options]
    intents = {a.rhs for _, atoms in chosen for a in atoms if a.name == "intent" and a.op == "=="}
    return chosen, len(intents) > 1 or bool(intents & excluded)


def _falsify(sc: Scenario, alternative: list[Atom], taken: list[Atom], delta: int,
             enums: dict[str, list[Any]], excluded: dict[str, set[str]]) -> None:
    """Make one alternative of an earlier sibling condition fail: nothing to do when its intent is
    not the path's or it asks for a failure or a count the path does not have; else the first of
    its atoms the taken condition does not also need is set to fail."""
    if any(a.name == "intent" for a in alternative):  # the path's intent decides it, not an output
        return
    if any((a.is_error or a.is_counter) and not locate(sc.outputs, a.lhs) for a in alternative) and len(alternative) > 1:
        return
    shared = {(a.lhs, a.op, a.rhs) for a in taken}
    for atom in alternative:
        if atom.name != "intent" and (atom.lhs, atom.op, atom.rhs) not in shared \
                and set_atom(sc.outputs, atom, False, delta, enums=enums, excluded=excluded):
            return


def _about(spec: Spec, atom: Atom, tools: list[str]) -> str:
    return max(tools, key=lambda t: (overlap(atom.lhs, t), -tools.index(t)))


def _count(sc: Scenario, spec: Spec, atom: Atom, tools: list[str], asked: list[str]) -> None:
    """A loop counter that must hold: the step's tool is called that often -- retries of a failing
    call (the failure stays), or attempts the user makes with another value each turn."""
    n = int(atom.value) if isinstance(atom.value, int | float) and not isinstance(atom.value, bool) else 0
    n = {">": n + 1, ">=": n, "==": n, "<=": n, "<": max(n - 1, 0)}.get(atom.op, n)
    tool = _about(spec, atom, tools)
    calls = n + 1 if atom.counts_retries else n
    if calls > 1:
        sc.calls[tool] = max(calls, sc.calls.get(tool, 0))
        if tool not in sc.failures:
            # what the user restates: the fields the step asks for, else the tool's inputs only they know
            spec_tool = spec.tool(tool)
            restated = [f for f in asked if spec_tool and f in spec_tool.input_properties()]
            sc.retry_fields += [f for f in restated or _user_inputs(spec, [tool]) if f not in sc.retry_fields]


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


def _plant_canaries(spec: Spec, sc: Scenario) -> None:
    for tool, names in private_objects(spec).items():
        for name in names:
            obj = sc.outputs.get(tool, {}).get(name)
            if not isinstance(obj, dict):
                continue
            for key in list(obj):
                canary = f"{key.upper()}_CANARY_{len(sc.canaries) + 1}"
                obj[key] = canary
                sc.canaries.append(canary)
