"""What the offline spec agent sees of a request, and how it answers (see :mod:`tdad_agent`).

A :class:`View` of the chat messages: the system prompt, the user turns, the tool calls with their
outputs (and this turn's); values found in the outputs by field name; the arguments of a tool
call taken from the user's words (the latest turn first), then earlier outputs, then the prompt;
and the ``respond`` call that ends a turn, with the output fields the user asked about by name
(never those a rule keeps private).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from adat.llm.types import LLMRequest
from adat_offline.tdad_rules import Rules
from adat_offline.tdad_text import find_field, literal, overlap, words

RESPOND = "respond"

@dataclass
class View:
    """The conversation as the agent sees it."""

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


def read_view(request: LLMRequest) -> View:
    """The request's messages as a :class:`View`."""
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


def find_in(obj: Any, name: str) -> Any:
    """The value of key ``name`` anywhere in ``obj`` (first list items included); None if absent."""
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        for v in obj.values():
            found = find_in(v, name)
            if found is not None:
                return found
    elif isinstance(obj, list) and obj:
        return find_in(obj[0], name)
    return None


def lookup(view: View, lhs: str) -> Any:
    """The latest output value ``a.b.name`` names, from the tools named most like ``a.b`` first."""
    name = lhs.rsplit(".", 1)[-1]
    prefix = lhs.rsplit(".", 1)[0] if "." in lhs else ""
    tools = sorted({n for n, *_ in view.outputs}, key=lambda t: -overlap(prefix, t) if prefix else 0)
    for tool in tools:
        value = find_in(view.latest(tool), name)
        if value is not None:
            return value
    return None


def called(view: View, tool: str) -> bool:
    """``tool`` was called in this session (whatever it returned)."""
    return any(name == tool for name, *_ in view.outputs)


# --- tool arguments and the answer ---------------------------------------------------------------
def user_value(view: View, name: str) -> Any:
    """The value the user gave for ``name`` in any turn (None if none)."""
    return find_field(name, view.text)



def tool_args(view: View, tool: str) -> dict[str, Any]:
    """Arguments of a ``tool`` call: the latest user turn, every turn, earlier outputs, the prompt."""
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
            value = next((v for n, *_ in view.outputs if (v := find_in(view.latest(n), name)) is not None), None)
        if value is None:
            value = find_field(name, context)
        if value is not None:
            kind = prop.get("type") if isinstance(prop, dict) else None
            args[name] = literal(str(value)) if kind in ("number", "integer") else value
    return args


def offered_decisions(view: View) -> list[str]:
    """The decisions ``respond`` accepts (its ``decision`` enum)."""
    fn = view.tools.get(RESPOND, {})
    enum = (((fn.get("parameters") or {}).get("properties") or {}).get("decision") or {}).get("enum") or []
    return [str(d) for d in enum]


def respond_with(view: View, rules: Rules, node: str, decisions: list[str]) -> tuple[str, dict[str, Any]]:
    """The ``respond`` call with the first of ``decisions`` offered (else the first offered)."""
    options = offered_decisions(view)
    decision = next((d for d in decisions if d in options), options[0] if options else "")
    asked = set(words(view.users[-1]))
    facts: list[str] = []
    for name, *_ in dict.fromkeys((n,) for n, *_ in view.outputs):
        asked_facts(view.latest(name), asked, rules.private, facts, inside_private=False)
    message = f"{decision.replace('_', ' ').capitalize()}." + (f" {'; '.join(facts[:6])}." if facts else "")
    props = ((view.tools.get(RESPOND, {}).get("parameters") or {}).get("properties") or {})
    payload = {"node_id": node or "UNKNOWN", "decision": decision,
               "tool_actions": [n for n, *_ in view.this_turn], "evidence": "; ".join(facts[:3]) or "none",
               "user_message": message}
    return RESPOND, {k: v for k, v in payload.items() if k in props}


def asked_facts(obj: Any, asked: set[str], private: set[str], out: list[str], *, inside_private: bool) -> None:
    """Scalar fields of the outputs the user asked about by name; private ones only if no rule hides them."""
    if not isinstance(obj, dict):
        return
    for key, value in obj.items():
        hidden = inside_private or bool(set(words(key)) & private)
        if isinstance(value, dict):
            asked_facts(value, asked, private, out, inside_private=hidden)
        elif not isinstance(value, list) and set(words(key)) & asked and not hidden:
            out.append(f"{key} {value}")
