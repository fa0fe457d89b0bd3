"""offline/heuristic as a TDAD spec agent: one tool call (or the final ``respond``) per request.

It sees exactly what a model sees -- the chat messages (system prompt, user turns, its earlier
tool calls and their outputs) and the tool definitions -- and follows the rules its prompt states
(:mod:`adat_offline.tdad_rules`): it walks the steps from the root, asks for missing fields, calls
the tools a step lists, takes the first branch whose condition holds on the tool outputs and
the user's words, and answers with the decision the step it stops at names. Without steps it
is naive: it calls the tools whose names or descriptions share words with the request and
answers with the decision that shares most words with it. Gates, confirmation, retries and
privacy apply only when the prompt states them. A removed clause therefore has an effect.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from adat.llm.types import LLMRequest, LLMResponse, ToolCall
from adat_offline.tdad_rules import Rules, Step, parse_rules
from adat_offline.tdad_text import (
    Atom,
    condition_atoms,
    confirmation,
    decisions_for,
    find_field,
    literal,
    overlap,
    parse_alternatives,
    stems,
    words,
)

RESPOND = "respond"
_GENERIC = {"get", "fetc", "data", "tool", "user", "subm", "resp", "crea", "list", "chec", "info", "requ",
            "here", "deta"}  # stems too common in requests to pick a tool by
MAX_WALK = 24
#: stems of words that make a decision or an output a refusal or a failure
_NEGATIVE = {"refu", "deni", "reje", "fail", "unve", "erro", "unab", "deny", "decl"}


@dataclass
class View:
    system: str
    tools: dict[str, dict[str, Any]]  # name -> function definition
    users: list[str]
    outputs: list[tuple[str, dict[str, Any], str, bool]] = field(default_factory=list)  # name, args, output, error
    this_turn: list[tuple[str, bool, str]] = field(default_factory=list)  # name, error, output

    @property
    def text(self) -> str:
        return "\n".join(self.users)

    def latest(self, tool: str) -> Any:
        for name, _, out, error in reversed(self.outputs):
            if name == tool and not error:
                try:
                    return json.loads(out)
                except ValueError:
                    return None
        return None


def _view(request: LLMRequest) -> View:
    tools = {t["function"]["name"]: t["function"] for t in request.tools or [] if t.get("type") == "function"}
    system = "\n".join(str(m.get("content") or "") for m in request.messages if m.get("role") == "system")
    view = View(system=system, tools=tools, users=[])
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    for m in request.messages:
        role = m.get("role")
        if role == "user":
            view.users.append(str(m.get("content") or ""))
            view.this_turn = []
        elif role == "assistant":
            for tc in m.get("tool_calls") or []:
                fn = tc.get("function", {})
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    args = {}
                pending[tc.get("id", "")] = (fn.get("name", ""), args if isinstance(args, dict) else {})
        elif role == "tool":
            name, args = pending.get(str(m.get("tool_call_id", "")), ("", {}))
            out = str(m.get("content") or "")
            error = '"error"' in out[:20]
            view.outputs.append((name, args, out, error))
            view.this_turn.append((name, error, out))
    return view


def act(request: LLMRequest) -> LLMResponse:
    view = _view(request)
    rules = parse_rules(view.system, {n: str(f.get("description") or "") for n, f in view.tools.items()})
    call = _walk(view, rules) if rules.root() else _naive(view, rules)
    name, args = call
    n = len(view.outputs)
    return LLMResponse(tool_calls=[ToolCall(id=f"call_{n}", name=name, arguments=json.dumps(args))])


# --- following the prompt's steps ---------------------------------------------------------------
def _walk(view: View, rules: Rules) -> tuple[str, dict[str, Any]]:
    node: str = rules.root() or ""
    for _ in range(MAX_WALK):
        step = rules.steps.get(node)
        if step is None:  # the prompt leads here but says nothing about it: back to naive habits
            return _naive(view, rules, node)
        if not (step.branches or step.tools or step.ask_fields or step.must_have):
            return _respond(view, rules, node, decisions_for(node, _decisions(view)))
        missing = [f for f in step.ask_fields if not _user_value(view, f)]
        if missing:
            return _respond(view, rules, node, [step.ask_decision] if step.ask_decision else [])
        if [f for f in step.must_have if not _user_value(view, f)]:
            return _respond(view, rules, node, [step.missing_decision] if step.missing_decision
                            else decisions_for(node, _decisions(view)))
        failed = ""
        for tool in step.tools:
            need = _need_call(view, rules, tool)
            if need == "call":
                return tool, _args(view, tool)
            if need == "failed":
                failed = tool
                break
        # after a failed call only a branch about failures or retries applies (no output to test)
        # a step that calls nothing has nothing to repeat: its loop back to itself never applies
        nxt = next((n for cond, n in step.branches if (not failed or _about_failure(cond))
                    and (step.tools or n != node) and _holds(cond, view, step, rules)), None)
        if nxt is None and not step.tools and not failed:
            nxt = _without_unseen(view, step, rules)
        if nxt == node:  # the step loops to itself: call its tool again, or ask again for what it needs
            again = failed or next(iter(step.tools), "")
            if again and failed:
                return again, _args(view, again)
            return _respond(view, rules, node, [step.ask_decision] if step.ask_decision
                            else decisions_for(node, _decisions(view)))
        if failed and nxt is None:  # no branch says what a failed call leads to
            return _respond(view, rules, node, _failure_decisions(view, node))
        if nxt is None:
            return _respond(view, rules, node, decisions_for(node, _decisions(view)))
        node = nxt
    return _respond(view, rules, node, decisions_for(node, _decisions(view)))


def _need_call(view: View, rules: Rules, tool: str) -> str:
    mine = [(err, out) for name, err, out in view.this_turn if name == tool]
    if view.latest(tool) is not None:  # called before; again only for another value the user gave this turn
        return "call" if not mine and _restated(view, tool) else "done"
    if not mine:
        return "call"
    retriable = tool in rules.retry_on_timeout and '"timeout"' in mine[-1][1] and len(mine) < 2
    return "call" if retriable else "failed"


def _failure_decisions(view: View, node: str) -> list[str]:
    # a tool failed for good: the decision that names an escalation or a failure, else the step's own
    return decisions_for("ticket error failed " + node, _decisions(view))


def _restated(view: View, tool: str) -> bool:
    """The latest user turn gives one of ``tool``'s inputs a value other than its last call had."""
    last_args: dict[str, Any] = next((args for name, args, _, error in reversed(view.outputs) if name == tool and not error), {})
    params = (view.tools.get(tool, {}).get("parameters") or {}).get("properties") or {}
    for name in params:
        said = find_field(name, view.users[-1]) if view.users else None
        if said is not None and isinstance(last_args.get(name), str | int) and str(last_args[name]) != said:
            return True
    return False


def _without_unseen(view: View, step: Step, rules: Rules) -> str | None:
    """A step that calls no tool yet tests outputs nothing produced (its check was left out of the
    prompt): the first branch that holds on what was seen, its atoms about unseen outputs set
    aside -- an agent goes ahead on the facts it has. An alternative left with no atom never holds."""
    for cond, nxt in step.branches:
        for atoms in parse_alternatives(cond) or []:
            seen = [a for a in atoms if a.name == "intent" or (not a.is_error and not a.is_counter
                                                                  and _lookup(view, a.lhs) is not None)]
            if seen and len(seen) < len(atoms) and all(_atom(a, view, step, rules) for a in seen):
                return nxt
    return None


def _about_failure(cond: str) -> bool:
    return any(a.is_error or a.is_counter for a in condition_atoms(cond))


def _holds(cond: str, view: View, step: Step, rules: Rules) -> bool:
    alternatives = parse_alternatives(cond)
    if alternatives is None:
        return False
    return any(all(_atom(a, view, step, rules) for a in atoms) for atoms in alternatives)


def _keywords(text: str) -> set[str]:
    """Stems of the items of enumerations ("SSN, DOB, email, phone") in a policy line."""
    out: set[str] = set()
    for sentence in re.split(r"[.;:!?]", text):
        items = [p.strip() for p in re.split(r",|\bor\b|\band\b", sentence)]
        short = [p for p in items if p and len(p.split()) <= 2]
        if len(short) >= 3:
            out |= {w[:4] for p in short[1:] for w in words(p)}
            out |= {words(short[0])[-1][:4]} if words(short[0]) else set()
    return out


def _intent_score(value: str, view: View, rules: Rules) -> float:
    """Share of the intent's words in what the user said; the items enumerated by a policy whose id
    shares a word with the intent (a policy P9_NO_SECRETS listing "PIN, password, token" for a secrets intent) count half."""
    wanted = (stems(value) - _GENERIC) or stems(value)  # "details", "request" say nothing of the topic
    if not wanted:
        return 0.0
    said = stems(view.text)
    related = set().union(*(_keywords(text) for pid, text in rules.policies if stems(pid) & wanted)) - wanted
    return len(wanted & said) / len(wanted) + 0.5 * bool(related & said)


def _best_intent(rules: Rules, view: View) -> str:
    """The intent named anywhere in the steps' branches that the user's words fit best ('' = none)."""
    known = [n.rhs for st in rules.steps.values() for c, _ in st.branches for n in condition_atoms(c)
             if n.name == "intent"]
    scored = [(s, -i, v) for i, v in enumerate(dict.fromkeys(known)) if v != "unknown"
              and (s := _intent_score(v, view, rules)) > 0]
    return max(scored)[2] if scored else ""


def _atom(a: Atom, view: View, step: Step, rules: Rules) -> bool:
    if a.name == "intent":
        best = _best_intent(rules, view)
        result = (best == "") if a.rhs == "unknown" else (best == a.rhs)
        if a.rhs == "unknown" and a.rest:  # "unknown after clarify": still unknown on a later turn
            result = result and len(view.users) > 1
        return result if a.op == "==" else not result
    if "confirm" in a.name and not a.is_counter and _lookup(view, a.lhs) is None:  # the user's yes / no
        said = confirmation(view.users[-1]) if len(view.users) > 1 else "unclear"
        match = said == str(a.value).lower() or (said == "unclear" and a.rhs.lower() in ("ambiguous", "unclear"))
        return match if a.op == "==" else not match
    if a.is_error:  # how the step's tool call failed this turn ('' when it did not)
        left: Any = _failure(view, step, a)
    else:
        left = _lookup(view, a.lhs)
    if left is None and a.is_counter:
        left = _count(view, step, a)
    if a.op in (">", ">=", "<", "<="):
        right = _lookup(view, a.rhs)
        right = a.value if right is None else right
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right)):
            return False
        lv, rv = float(left), float(right)  # type: ignore[arg-type]
        return {">": lv > rv, ">=": lv >= rv, "<": lv < rv, "<=": lv <= rv}[a.op]
    want = a.value
    if left is None and isinstance(want, bool):
        # no output says it: true only when the user's words say it, else false (closed world)
        left = bool(stems(a.lhs)) and stems(a.lhs) <= stems(view.text)
    equal = left == want or (isinstance(left, str) and left.lower() == str(want).lower())
    return equal if a.op == "==" else not equal


def _step_tool(view: View, step: Step, a: Atom) -> str:
    """The tool an error or counter atom is about: the step's tool named most like it, else its first."""
    tools = step.tools or list(dict.fromkeys(n for n, *_ in view.outputs))
    return max(tools, key=lambda t: (overlap(a.lhs, t), -tools.index(t)), default="")


def _failure(view: View, step: Step, a: Atom) -> str:
    tool = _step_tool(view, step, a)
    mine = [out for name, err, out in view.this_turn if name == tool]
    if not mine or '"error"' not in mine[-1][:20]:
        return ""
    try:
        return str(json.loads(mine[-1]).get("error", ""))
    except (ValueError, AttributeError):
        return "error"


def _count(view: View, step: Step, a: Atom) -> int:
    """Calls of the step's tool: this turn's retries (``retries >= 1``), else attempts in the session."""
    tool = _step_tool(view, step, a)
    if a.counts_retries:
        return max(0, sum(1 for name, *_ in view.this_turn if name == tool) - 1)
    return sum(1 for name, *_ in view.outputs if name == tool)


def _find(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        for v in obj.values():
            found = _find(v, name)
            if found is not None:
                return found
    elif isinstance(obj, list) and obj:
        return _find(obj[0], name)
    return None


def _lookup(view: View, lhs: str) -> Any:
    name = lhs.rsplit(".", 1)[-1]
    prefix = lhs.rsplit(".", 1)[0] if "." in lhs else ""
    tools = sorted({n for n, *_ in view.outputs}, key=lambda t: -overlap(prefix, t) if prefix else 0)
    for tool in tools:
        value = _find(view.latest(tool), name)
        if value is not None:
            return value
    return None


# --- naive habits (nothing in the prompt says what to do) ----------------------------------------
def _naive(view: View, rules: Rules, node: str = "") -> tuple[str, dict[str, Any]]:
    request = stems(view.users[-1]) - _GENERIC
    scored = []
    for name, fn in view.tools.items():
        if name == RESPOND:
            continue
        score = len((stems(name) | stems(str(fn.get("description") or ""))) - _GENERIC & request)
        if score:
            scored.append((-score, name))
    for _, tool in sorted(scored):
        for gate, guarded in rules.gates:
            if tool in guarded and view.latest(gate) is None and not _called(view, gate):
                return gate, _args(view, gate)
        if tool in rules.confirm_before and confirmation(view.users[-1]) != "yes":
            return _respond(view, rules, node, decisions_for("ask confirm " + tool, _decisions(view)))
        if not _called(view, tool) or _need_call(view, rules, tool) == "call":  # a first call, or a retry
            args = _args(view, tool)
            params = view.tools.get(tool, {}).get("parameters") or {}
            asked = {f for st in rules.steps.values() for f in [*st.ask_fields, *st.must_have]}
            for name in params.get("required") or []:
                prop = (params.get("properties") or {}).get(name) or {}
                if name not in args and name not in asked and prop.get("type") == "string" and view.users:
                    args[name] = view.users[-1]  # free text the agent writes itself (a statement, a note)
            if all(r in args for r in params.get("required") or []):  # else nothing to call it with: skip it
                return tool, args
    topic = " ".join([view.users[-1], *(n for n, *_ in view.this_turn)])
    options = _decisions(view)
    named = decisions_for(node, options) if node else []  # where the prompt's steps led, if it names one
    acted = [(name, err, out) for name, err, out in view.this_turn if name != RESPOND]
    if named and acted and not acted[-1][1] and not _refusal(acted[-1][2]) and any(_refusal(d) for d in named):
        # the node names a refusal and a success of one thing, and the action went through: a
        # naive agent announces it rather than refusing it
        named = decisions_for(node, [d for d in options if not _refusal(d)]) or named
    return _respond(view, rules, node, named or decisions_for(topic, options))


def _refusal(text: str) -> bool:
    return bool(_NEGATIVE & {w[:4] for w in words(text)})


def _called(view: View, tool: str) -> bool:
    return any(name == tool for name, *_ in view.outputs)


# --- tool arguments and the answer ---------------------------------------------------------------
def _user_value(view: View, name: str) -> Any:
    return find_field(name, view.text)



def _args(view: View, tool: str) -> dict[str, Any]:
    params = view.tools.get(tool, {}).get("parameters") or {}
    context = view.system.replace('"', " ").replace("'", " ")
    args: dict[str, Any] = {}
    for name, prop in (params.get("properties") or {}).items():
        if isinstance(prop, dict) and prop.get("type") == "object" and not prop.get("properties"):
            args[name] = {}  # a free-form object: nothing in the conversation fixes its shape
            continue
        if isinstance(prop, dict) and prop.get("type") == "object" and prop.get("properties"):
            sub = {k: find_field(k, view.text) for k in prop["properties"]}
            if any(v is not None for v in sub.values()):
                args[name] = {k: v for k, v in sub.items() if v is not None}
            continue
        value = find_field(name, view.users[-1]) if view.users else None  # the latest value the user gave
        value = find_field(name, view.text) if value is None else value
        if value is None:
            value = next((v for n, *_ in view.outputs if (v := _find(view.latest(n), name)) is not None), None)
        if value is None:
            value = find_field(name, context)
        if value is not None:
            kind = prop.get("type") if isinstance(prop, dict) else None
            args[name] = literal(str(value)) if kind in ("number", "integer") else value
    return args


def _decisions(view: View) -> list[str]:
    fn = view.tools.get(RESPOND, {})
    enum = (((fn.get("parameters") or {}).get("properties") or {}).get("decision") or {}).get("enum") or []
    return [str(d) for d in enum]


def _respond(view: View, rules: Rules, node: str, decisions: list[str]) -> tuple[str, dict[str, Any]]:
    options = _decisions(view)
    decision = next((d for d in decisions if d in options), options[0] if options else "")
    asked = set(words(view.users[-1]))
    facts: list[str] = []
    for name, *_ in dict.fromkeys((n,) for n, *_ in view.outputs):
        _facts(view.latest(name), asked, rules.private, facts, inside_private=False)
    message = f"{decision.replace('_', ' ').capitalize()}." + (f" {'; '.join(facts[:6])}." if facts else "")
    props = ((view.tools.get(RESPOND, {}).get("parameters") or {}).get("properties") or {})
    payload = {"node_id": node or "UNKNOWN", "decision": decision,
               "tool_actions": [n for n, *_ in view.this_turn], "evidence": "; ".join(facts[:3]) or "none",
               "user_message": message}
    return RESPOND, {k: v for k, v in payload.items() if k in props}


def _facts(obj: Any, asked: set[str], private: set[str], out: list[str], *, inside_private: bool) -> None:
    """Scalar fields of the outputs the user asked about by name; private ones only if no rule hides them."""
    if not isinstance(obj, dict):
        return
    for key, value in obj.items():
        hidden = inside_private or bool(set(words(key)) & private)
        if isinstance(value, dict):
            _facts(value, asked, private, out, inside_private=hidden)
        elif not isinstance(value, list) and set(words(key)) & asked and not hidden:
            out.append(f"{key} {value}")
