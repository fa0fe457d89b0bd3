"""offline/heuristic TestSmith, part 2: tests per family for one path (see tdad_scenario).

MFT = the path; INV = the same with greetings and filler; DIR = a field the path's node asks for
left out (expect its missing-field decision, no later tool), or a retried tool timing out once
(expect two calls); paraphrase = other wording and field order; boundary_values = numeric
conditions at their edge; tool_output_metamorphic = extra keys and list items in every output.
Assertions come from the path (decisions named by the leaf, tools the nodes require, tools of
sibling branches not called) and from policy sentences (``A before B`` -> auth gate; confirmation
before a tool -> confirm_before; never-shown objects -> PII canaries and no_pii).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from adat.contracts.tdad_clauses import CONTRACT_CLAUSE, retry_clause
from adat.contracts.tdad_spec import Spec
from adat.contracts.testsmith_roles import GeneratedSpecTest, PathStep, TestSmithInput, TestSmithOutput
from adat.spec_records import SpecAssertion, ToolFixture
from adat_offline.tdad_privacy import PRIVACY_WORDS, asks_private, private_fields
from adat_offline.tdad_scenario import Scenario, build, value_for
from adat_offline.tdad_text import decisions_for, words

UNCLEAR = ("Hmm, about that thing from before.", "Hmm, still that thing.")


def _object_props(spec: Spec, name: str) -> list[str]:
    for tool in spec.tools:
        prop = tool.input_properties().get(name)
        if isinstance(prop, dict) and prop.get("type") == "object" and prop.get("properties"):
            return list(prop.get("required") or prop["properties"])
    return []


def _mention(spec: Spec, field: str, seed: int, *, style: str) -> str:
    name, _, value = field.partition("=")
    subs = _object_props(spec, name)
    if subs:
        inner = ", ".join(f"{s} {value_for(s, seed)}" for s in subs)
        return f"{name.replace('_', ' ')}: {inner}"
    if style == "paraphrase":
        return f"my {name} is {value}"
    return f"{name[:-3].replace('_', ' ')} #{value}" if name.endswith("_id") else f"{name} {value}"


def _turns(spec: Spec, sc: Scenario, seed: int, *, style: str = "plain", drop: tuple[str, ...] = ()) -> list[str]:
    phrase = sc.intent.replace("_", " ")
    fields = [_mention(spec, f, seed, style=style) for f in sc.fields if f.partition("=")[0] not in drop]
    if style == "paraphrase":
        fields.reverse()
    private = private_fields(spec)
    if sc.intent == "unknown" or (not sc.intent and not fields):
        first = UNCLEAR[0]
    elif not sc.intent:
        first = "Here are my details."
    elif private and asks_private(spec, sc.intent):
        first = f"What is my {', '.join(p.replace('_', ' ') for p in private)} on file? ({phrase})"
    elif style == "paraphrase":
        first = f"Hi. My request: {phrase}."
    else:
        first = f"I want to {phrase}."
    if fields:
        first += (" " if style == "paraphrase" else " Details: ") + ", ".join(fields) + "."
    first += "".join(f" ({flag})" for flag in sc.user_flags)
    if style == "inv":
        first = f"Hello there! {first} Thanks a lot, have a nice day."
    turns = [first]
    if sc.confirm_turn:
        yes = "Sure, do it." if style == "paraphrase" else "Yes, please go ahead."
        turns.append(yes if sc.confirm_turn in ("yes", "true") else "No, I changed my mind.")
    if sc.extra_turn_node:
        turns.append(UNCLEAR[1])
    attempts = max((sc.calls.get(t, 0) for t in sc.calls if t not in sc.failures), default=0)
    for n in range(1, attempts):  # a loop counter: the user tries again with another value each time
        again = [_mention(spec, f"{f}={value_for(f, seed + 7 * n)}", seed, style=style) for f in sc.retry_fields
                 if f not in drop]
        if again:
            turns.append(f"Sorry, let me try again: {', '.join(again)}.")
    return turns


def _gates(spec: Spec) -> list[tuple[str, list[str], str]]:
    """``(kind, tools, policy id)`` from policy sentences naming tools around ``before``."""
    out = []
    names = spec.action_tools()
    for policy in spec.policies:
        text = policy.text
        cut = text.lower().find(" before ")
        if cut < 0:
            continue
        before = [t for t in names if 0 <= text.find(t) < cut]
        after = [t for t in names if text.find(t) > cut]
        if before and after:
            out.append(("auth_gate", [before[0], *after], policy.id))
        elif after and "confirm" in text[:cut].lower():
            out.append(("confirm_before", after, policy.id))
    return out


def _path_tools(spec: Spec, path: list[PathStep], sc: Scenario) -> list[tuple[str, list[str]]]:
    out = []
    for step in path:
        node = spec.node(step.node_id)
        tools = list(node.requirements.must_call_tools_in_order) if node else []
        for i, tool in enumerate(tools):
            if tool in sc.negative_tools:
                tools = tools[: i + 1]
                break
        if tools:
            out.append((step.node_id, tools))
    return out


def _subtree_tools(spec: Spec, start: str, avoid: set[str]) -> set[str]:
    seen, todo, tools = set(), [start], set()
    while todo:
        node = spec.node(todo.pop())
        if node is None or node.node_id in seen or node.node_id in avoid:
            continue
        seen.add(node.node_id)
        tools |= set(node.requirements.must_call_tools_in_order)
        todo += [b.next for b in node.branches]
    return tools


def _assertions(spec: Spec, path: list[PathStep], leaf: str, sc: Scenario, turns: list[str]) -> list[SpecAssertion]:
    decisions = spec.decisions()
    last = len(turns) - 1
    out = [SpecAssertion(kind="response_fields", clause=CONTRACT_CLAUSE, values=spec.response_contract.required_json_fields)]
    leaf_node = spec.node(leaf)
    wanted = decisions_for(leaf, decisions, leaf_node.description if leaf_node else "")
    if wanted:
        out.append(SpecAssertion(kind="decision_in", clause=leaf, values=wanted, turn=last))
    respond = spec.tool("respond")
    if len(path) > 1 and respond is not None and "node_id" in respond.input_properties():
        # where the routing from the root ends: the leaf, or the step that chose it
        out.append(SpecAssertion(kind="json_in", clause=path[0].node_id, field="node_id", turn=last,
                                 values=list(dict.fromkeys([leaf, path[-2].node_id]))))
    for node_id in (sc.confirm_node, sc.extra_turn_node):
        asks = decisions_for(node_id, decisions) if node_id else []
        if asks and last > 0:
            out.append(SpecAssertion(kind="decision_in", clause=node_id, values=asks, turn=0))
    path_tools = _path_tools(spec, path, sc)
    used = {t for _, tools in path_tools for t in tools}
    for node_id, tools in path_tools:
        kind = "tool_order" if len(tools) > 1 else "tool_called"
        out.append(SpecAssertion(kind=kind, clause=node_id, tools=tools))
    on_path = {s.node_id for s in path}
    branching = [s for s in path if (n := spec.node(s.node_id)) is not None and len(n.branches) > 1]
    if branching:
        step = branching[-1]
        node = spec.node(step.node_id)
        siblings = [b.next for b in (node.branches if node else []) if b.next != step.next]
        avoid = on_path | {step.next}
        others = set().union(*(_subtree_tools(spec, s, avoid) for s in siblings)) - used
        all_path = {t for s in path if (n := spec.node(s.node_id)) for t in n.requirements.must_call_tools_in_order}
        others -= all_path
        if others:
            out.append(SpecAssertion(kind="tool_not_called", clause=step.node_id, tools=sorted(others)))
    for kind, tools, policy in _gates(spec):
        if kind == "auth_gate" and used & set(tools[1:]):
            out.append(SpecAssertion(kind="auth_gate", clause=policy, tools=tools))
        elif kind == "confirm_before" and used & set(tools) and sc.confirm_turn and last > 0:
            out.append(SpecAssertion(kind="confirm_before", clause=policy, tools=sorted(used & set(tools)), turn=1))
    if sc.canaries:
        policy = next((p.id for p in spec.policies if set(words(p.text)) & PRIVACY_WORDS),
                      CONTRACT_CLAUSE)
        out.append(SpecAssertion(kind="no_pii", clause=policy, values=sc.canaries))
    return out


def _fixtures(outputs: dict[str, Any], failures: dict[str, str] | None = None) -> list[ToolFixture]:
    """One fixture per tool: its output, or -- for a tool the path needs to fail -- the failure
    alone (every call), never a failure next to an output that contradicts it."""
    failures = failures or {}
    return [ToolFixture(tool=t, failure=failures[t]) if t in failures
            else ToolFixture(tool=t, output_json=json.dumps(o, sort_keys=True)) for t, o in outputs.items()]


def _metamorphic(obj: Any, seed: int) -> Any:
    if isinstance(obj, dict):
        out = {k: _metamorphic(v, seed) for k, v in obj.items()}
        out["request_ref"] = f"RR-{seed % 1000}"
        return out
    if isinstance(obj, list) and obj:
        extra = copy.deepcopy(obj[-1])
        if isinstance(extra, dict):
            extra = {k: (f"{v}-X" if isinstance(v, str) else v) for k, v in extra.items()}
        return [_metamorphic(v, seed) for v in obj] + [extra]
    return obj


def _test(family: str, title: str, turns: list[str], outputs: dict[str, Any], sc: Scenario,
          assertions: list[SpecAssertion], varies: str = "") -> GeneratedSpecTest:
    # what the assertions cite; testsmith() adds every node of the path the test derives from
    clauses = list(dict.fromkeys(a.clause for a in assertions))
    return GeneratedSpecTest(family=family, title=title, user_turns=turns, fixtures=_fixtures(outputs, sc.failures),  # type: ignore[arg-type]
                             pii_canaries=sc.canaries, assertions=assertions, varies=varies, clauses=clauses)


def testsmith(inp: TestSmithInput) -> TestSmithOutput:
    spec = Spec.model_validate(inp.spec)
    path, leaf, seed = inp.path, inp.leaf_id, inp.seed
    sc = build(spec, path, seed=seed)
    if sc.conflicting or sc.unrealizable:  # two intents at once, or an outcome nothing can show
        return TestSmithOutput(tests=[])
    turns = _turns(spec, sc, seed)
    base = _assertions(spec, path, leaf, sc, turns)
    tests: list[GeneratedSpecTest] = []
    for family in inp.families:
        if family == "MFT":
            tests.append(_test("MFT", f"{leaf} via {' > '.join(s.node_id for s in path[:-1])}", turns, sc.outputs, sc, base))
        elif family == "INV":
            tests.append(_test("INV", f"{leaf}, with filler", _turns(spec, sc, seed, style="inv"), sc.outputs, sc, base))
        elif family == "DIR":
            made = _dir(spec, path, sc, seed, base)
            tests += [made] if made else []
        elif family == "paraphrase":
            tests.append(_test("paraphrase", f"{leaf}, reworded", _turns(spec, sc, seed, style="paraphrase"),
                               sc.outputs, sc, base, varies="MFT"))
        elif family == "boundary_values" and sc.numeric:
            edge = build(spec, path, seed=seed, delta=1)
            tests.append(_test("boundary_values", f"{leaf}, at the threshold", turns, edge.outputs, sc, base, "MFT"))
        elif family == "tool_output_metamorphic":
            changed = {t: _metamorphic(o, seed) for t, o in sc.outputs.items()}
            tests.append(_test("tool_output_metamorphic", f"{leaf}, outputs with extra data", turns, changed, sc,
                               base, "MFT"))
    nodes = [s.node_id for s in path]
    return TestSmithOutput(tests=[t.model_copy(update={"clauses": list(dict.fromkeys([*t.clauses, *nodes]))})
                                  for t in tests])


def _dir(spec: Spec, path: list[PathStep], sc: Scenario, seed: int, base: list[SpecAssertion]) -> GeneratedSpecTest | None:
    options: list[GeneratedSpecTest] = []
    for i, step in enumerate(path):
        node = spec.node(step.node_id)
        if node is None:
            continue
        req = node.requirements
        missing = req.missing_decisions()
        fields = tuple(req.if_missing_fields or req.must_have)
        decision = req.on_missing_fields_decision or next(iter(missing.values()), None)
        if fields and decision:
            later = {t for s in path[i:] if (n := spec.node(s.node_id)) for t in n.requirements.must_call_tools_in_order}
            turns = _turns(spec, Scenario(intent=sc.intent, fields=sc.fields, user_flags=sc.user_flags), seed,
                           drop=fields)
            checks = [base[0], SpecAssertion(kind="decision_in", clause=node.node_id, values=[decision], turn=0)]
            if later:
                checks.append(SpecAssertion(kind="tool_not_called", clause=node.node_id, tools=sorted(later)))
            options.append(_test("DIR", f"{node.node_id} without {', '.join(fields)}", turns, sc.outputs, sc, checks))
            break
    for _, tools in _path_tools(spec, path, sc):
        for tool in tools:
            t = spec.tool(tool)
            if t and t.retry_policy.retries >= 1 and "timeout" in t.retry_policy.on and tool not in sc.negative_tools:
                fixtures = _fixtures(sc.outputs, sc.failures)
                for f in fixtures:
                    if f.tool == tool:
                        f.failure, f.fail_times = "timeout", 1
                checks = [*base, SpecAssertion(kind="tool_called_exactly", clause=retry_clause(tool), tools=[tool],
                                               count=2)]
                made = _test("DIR", f"{tool} times out once and is retried", _turns(spec, sc, seed), sc.outputs, sc, checks)
                options.append(made.model_copy(update={"fixtures": fixtures}))
                break
        else:
            continue
        break
    return options[0] if options else None  # a missing field first: its expectation is stated in a node clause
