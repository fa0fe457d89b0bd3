"""Spec evolution (TDAD, DESIGN §9; issue #28 item 6): which v1 tests are v2's invariant tests.

v2 compiles from the compiled v1 prompt; SURS is the share of v1 invariant tests that passed on
v1 and still pass on the compiled v2 prompt (``sql/metrics/tdad_surs.sql``). A v1 test is an
*invariant test* of v2 when

1. **v2 keeps what it checks**: its leaf, every node on its path and every clause it cites. A
   policy is kept with the same id and text; a node with the same id *and the same branches*
   (``when`` and ``next``) -- a node kept by id whose branches changed is a changed requirement,
   so the tests through it are not invariant. A leaf a spec only names as a branch target is
   kept when v2 still names it; or
2. **the spec says the behaviour is preserved**: the test exercises one of v2's
   ``tests.v1_invariants.preserved_behaviors`` and its leaf and path nodes are kept as in 1 --
   a reworded policy then does not drop it; and, in both cases,
3. it exercises none of ``tests.v1_invariants.deprecated_behaviors``.

A test *exercises* a behaviour when the behaviour's id or description names one of the test's
clauses (leaf, path nodes, cited policies): the clause id verbatim, or every word of the clause
id (its ``P3_`` / ``N6_`` / ``END_`` tag left out) among the behaviour's words, compared on
their first five letters (``pii_refusal`` names ``END_REFUSE_PII``).

An invariant test then needs what v2's agent calls: each tool v2 adds gets a fixture made from
its output schema (:func:`schema_instance`); a test whose assertions name a tool v2 no longer has,
or for whose new tool no valid output can be made, is **not runnable** -- reported as such,
never as broken. Invariant tests are never inputs of the v2 compilation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from adat.spec_records import ToolFixture

_TAG = re.compile(r"^(?:[A-Za-z]{1,3}\d+[A-Za-z]?|END)$")
_STOP = frozenset(["the", "and", "for", "are", "not", "with", "now", "still", "any", "its", "that", "this", "into", "from", "only", "once", "when"])


def _branches(node: Any) -> list[tuple[str, str]]:
    return [(" ".join(b.when.split()), b.next) for b in node.branches]


def kept_clauses(v1: Any, v2: Any) -> set[str]:
    """Clause ids of ``v1`` that ``v2`` keeps: policies with the same text, nodes with the same branches."""
    v2_policies = {p.id: " ".join(p.text.split()) for p in v2.policies}
    kept = {p.id for p in v1.policies if v2_policies.get(p.id) == " ".join(p.text.split())}
    return kept | kept_nodes(v1, v2)


def kept_nodes(v1: Any, v2: Any) -> set[str]:
    """Node ids of ``v1`` that ``v2`` declares with the same branches."""
    v2_nodes = {n.node_id: _branches(n) for n in v2.decision_tree}
    return {n.node_id for n in v1.decision_tree if v2_nodes.get(n.node_id) == _branches(n)}


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 3 and w not in _STOP}


def _names(behaviour: Any, clause: str) -> bool:
    said = f"{behaviour.id} {behaviour.description}"
    if clause.lower() in said.lower():
        return True
    words = _stems(" ".join(p for p in clause.split("_") if not _TAG.match(p)))
    return bool(words) and words <= _stems(said.replace("_", " "))


def _clauses(test: Any) -> list[str]:
    return list(dict.fromkeys([test.leaf_id, *test.node_path, *test.clauses]))


def exercises(test: Any, behaviours: Sequence[Any]) -> list[str]:
    """Ids of the ``behaviours`` ``test`` exercises (see the module docstring)."""
    return [b.id for b in behaviours if any(_names(b, c) for c in _clauses(test))]


@dataclass
class Invariants:
    """v2's invariant tests: runnable ones (fixtures for v2's new tools added) and the others, with why."""

    tests: list[Any] = field(default_factory=list)
    not_runnable: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # test id -> 'kept clauses' | 'preserved: <ids>'


def invariant_tests(v1_tests: Sequence[Any], v1: Any, v2: Any) -> Invariants:
    """The v1 invariant tests of ``v2`` (see the module docstring)."""
    kept, nodes = kept_clauses(v1, v2), kept_nodes(v1, v2)
    guidance = v2.tests.v1_invariants
    preserved = list(guidance.preserved_behaviors) if guidance else []
    deprecated = list(guidance.deprecated_behaviors) if guidance else []
    v1_nodes = {n.node_id for n in v1.decision_tree}
    ids = {p.id for p in v1.policies} | v1_nodes
    v2_ends = {n.node_id for n in v2.decision_tree} | {b.next for n in v2.decision_tree for b in n.branches}
    out = Invariants()
    for test in v1_tests:
        leaf_kept = test.leaf_id in nodes or (test.leaf_id not in v1_nodes and test.leaf_id in v2_ends)
        route_kept = leaf_kept and all(n in nodes for n in test.node_path if n in v1_nodes)
        if not route_kept or exercises(test, deprecated):
            continue
        if all(c in kept for c in test.clauses if c in ids):
            source = "kept clauses"
        elif named := exercises(test, preserved):
            source = "preserved: " + ", ".join(named)
        else:
            continue
        ready, why = _with_v2_fixtures(test, v1, v2)
        out.sources[test.test_id] = source
        if why:
            out.not_runnable[test.test_id] = why
        else:
            out.tests.append(ready)
    return out


def _with_v2_fixtures(test: Any, v1: Any, v2: Any) -> tuple[Any, str]:
    """``test`` with a fixture for each tool v2 adds, or why it cannot run on v2."""
    v2_tools = set(v2.tool_names())
    gone = sorted({t for a in test.assertions for t in a.tools if t not in v2_tools})
    if gone:
        return test, f"its assertions name {', '.join(gone)}, which v2 does not have"
    fixtures = list(test.fixtures)
    for name in v2.action_tools():
        if name in v1.tool_names() or test.fixture(name) is not None:
            continue
        schema = v2.tool(name).output_schema
        made = schema_instance(schema)
        if made is _NONE:
            return test, f"no output of v2's new tool {name} can be made from its output schema"
        fixtures.append(ToolFixture(tool=name, output_json=json.dumps(made)))
    return test.model_copy(update={"fixtures": fixtures}), ""


_NONE = object()


def schema_instance(schema: Any) -> Any:
    """The smallest value valid for a JSON Schema (required keys only, first enum value, empty
    strings, zeros, ``false``), or ``_NONE`` when none can be made or it does not validate."""
    value = _instance(schema if isinstance(schema, dict) else {}, depth=0)
    if value is _NONE:
        return _NONE
    try:
        jsonschema.validate(value, schema or {})
    except (jsonschema.ValidationError, jsonschema.SchemaError):
        return _NONE
    return value


def _instance(schema: dict[str, Any], depth: int) -> Any:
    if depth > 8:
        return _NONE
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("oneOf", "anyOf"):
        for option in schema.get(key) or []:
            value = _instance(option, depth + 1) if isinstance(option, dict) else _NONE
            if value is not _NONE:
                return value
    kind = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        out = {}
        for name in schema.get("required") or []:
            value = _instance(props.get(name) or {}, depth + 1)
            if value is _NONE:
                return _NONE
            out[name] = value
        return out
    if kind == "array":
        item = _instance(schema.get("items") or {}, depth + 1) if schema.get("minItems") else None
        return [] if not schema.get("minItems") else (_NONE if item is _NONE else [item] * int(schema["minItems"]))
    simple = {"string": "x" * int(schema.get("minLength") or 0), "integer": int(schema.get("minimum") or 0),
              "number": schema.get("minimum") or 0, "boolean": False, "null": None}
    return simple.get(kind, _NONE) if isinstance(kind, str) else _NONE
