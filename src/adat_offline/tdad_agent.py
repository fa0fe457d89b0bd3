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
from typing import Any

from adat.llm.types import LLMRequest, LLMResponse, ToolCall
from adat_offline.tdad_rules import Rules, Step, parse_rules
from adat_offline.tdad_text import (
    Atom,
    condition_atoms,
    confirmation,
    decisions_for,
    find_field,
    overlap,
    parse_alternatives,
    stems,
    words,
)
from adat_offline.tdad_view import (
    RESPOND,
    View,
    called,
    lookup,
    offered_decisions,
    read_view,
    respond_with,
    tool_args,
    user_value,
)

_GENERIC = {"get", "fetc", "data", "tool", "user", "subm", "resp", "crea", "list", "chec", "info", "requ",
            "here", "deta"}  # stems too common in requests to pick a tool by
MAX_WALK = 24
#: stems of words that make a decision or an output a refusal or a failure
_NEGATIVE = {"refu", "deni", "reje", "fail", "unve", "erro", "unab", "deny", "decl"}


def act(request: LLMRequest) -> LLMResponse:
    view = read_view(request)
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
            return respond_with(view, rules, node, decisions_for(node, offered_decisions(view)))
        missing = [f for f in step.ask_fields if not user_value(view, f)]
        if missing:
            return respond_with(view, rules, node, [step.ask_decision] if step.ask_decision else [])
        if [f for f in step.must_have if not user_value(view, f)]:
            return respond_with(view, rules, node, [step.missing_decision] if step.missing_decision
                            else decisions_for(node, offered_decisions(view)))
        failed = ""
        for tool in step.tools:
            need = _need_call(view, rules, tool)
            if need == "call":
                return tool, tool_args(view, tool)
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
                return again, tool_args(view, again)
            return respond_with(view, rules, node, [step.ask_decision] if step.ask_decision
                            else decisions_for(node, offered_decisions(view)))
        if failed and nxt is None:  # no branch says what a failed call leads to
            return respond_with(view, rules, node, _failure_decisions(view, node))
        if nxt is None:
            return respond_with(view, rules, node, decisions_for(node, offered_decisions(view)))
        node = nxt
    return respond_with(view, rules, node, decisions_for(node, offered_decisions(view)))


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
    return decisions_for("ticket error failed " + node, offered_decisions(view))


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
                                                                  and lookup(view, a.lhs) is not None)]
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
    if "confirm" in a.name and not a.is_counter and lookup(view, a.lhs) is None:  # the user's yes / no
        said = confirmation(view.users[-1]) if len(view.users) > 1 else "unclear"
        match = said == str(a.value).lower() or (said == "unclear" and a.rhs.lower() in ("ambiguous", "unclear"))
        return match if a.op == "==" else not match
    if a.is_error:  # how the step's tool call failed this turn ('' when it did not)
        left: Any = _failure(view, step, a)
    else:
        left = lookup(view, a.lhs)
    if left is None and a.is_counter:
        left = _count(view, step, a)
    if a.op in (">", ">=", "<", "<="):
        right = lookup(view, a.rhs)
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
            if tool in guarded and view.latest(gate) is None and not called(view, gate):
                return gate, tool_args(view, gate)
        if tool in rules.confirm_before and confirmation(view.users[-1]) != "yes":
            return respond_with(view, rules, node, decisions_for("ask confirm " + tool, offered_decisions(view)))
        if not called(view, tool) or _need_call(view, rules, tool) == "call":  # a first call, or a retry
            args = tool_args(view, tool)
            params = view.tools.get(tool, {}).get("parameters") or {}
            asked = {f for st in rules.steps.values() for f in [*st.ask_fields, *st.must_have]}
            for name in params.get("required") or []:
                prop = (params.get("properties") or {}).get(name) or {}
                if name not in args and name not in asked and prop.get("type") == "string" and view.users:
                    args[name] = view.users[-1]  # free text the agent writes itself (a statement, a note)
            if all(r in args for r in params.get("required") or []):  # else nothing to call it with: skip it
                return tool, args
    topic = " ".join([view.users[-1], *(n for n, *_ in view.this_turn)])
    options = offered_decisions(view)
    named = decisions_for(node, options) if node else []  # where the prompt's steps led, if it names one
    acted = [(name, err, out) for name, err, out in view.this_turn if name != RESPOND]
    if named and acted and not acted[-1][1] and not _refusal(acted[-1][2]) and any(_refusal(d) for d in named):
        # the node names a refusal and a success of one thing, and the action went through: a
        # naive agent announces it rather than refusing it
        named = decisions_for(node, [d for d in options if not _refusal(d)]) or named
    return respond_with(view, rules, node, named or decisions_for(topic, options))


def _refusal(text: str) -> bool:
    return bool(_NEGATIVE & {w[:4] for w in words(text)})
