"""The spec's clauses as sentences: what a test cites (a policy id or a node id) and what a
prompt must say for an agent to follow it.

PromptSmith is given these sentences for the clauses of the failing visible tests, and the
offline stand-ins edit prompts with them. Everything comes from the spec at run time: the
policy's own text, or a node's description, requirements and branches in one fixed phrasing.
"""

from __future__ import annotations

import re
from typing import Any

_WORD = re.compile(r"[a-z0-9_]+")


def clause_texts(spec: Any) -> dict[str, str]:
    """Clause id -> one sentence, for every policy and every decision-tree node of ``spec``, the
    response contract (``response_contract``) and every retry policy (``tools.<name>.retry_policy``)."""
    out: dict[str, str] = {}
    for policy in spec.policies:
        out[policy.id] = " ".join(policy.text.split())
    for node in spec.decision_tree:
        out[node.node_id] = node_sentence(node)
    contract = spec.response_contract
    if contract.required_json_fields:
        text = f"Call respond exactly once per turn, as the last action, with {', '.join(contract.required_json_fields)}."
        decisions = spec.decisions()
        out[CONTRACT_CLAUSE] = text + (f" The decision is one of {', '.join(decisions)}." if decisions else "")
    for tool in spec.tools:
        policy = tool.retry_policy
        if policy.retries >= 1 and policy.on:
            out[retry_clause(tool.name)] = (f"{tool.name}: on {' or '.join(policy.on)}, retry it up to "
                                            f"{policy.retries} time(s).")
    return out


CONTRACT_CLAUSE = "response_contract"


def retry_clause(tool: str) -> str:
    """The clause id tests cite for a tool's retry policy."""
    return f"tools.{tool}.retry_policy"


def node_sentence(node: Any) -> str:
    """A node as one sentence: description, requirements (fields, tools in order), branches."""
    parts = [" ".join((node.description or node.node_id).split()).rstrip(".") + "."]
    req = node.requirements
    if req.if_missing_fields:
        ask = f"If any of {', '.join(req.if_missing_fields)} is missing, ask the user for it"
        if req.on_missing_fields_decision:
            ask += f" with decision {req.on_missing_fields_decision}"
        parts.append(ask + ".")
    if req.must_have:
        parts.append(f"Do not proceed without {', '.join(req.must_have)}.")
    if req.must_call_tools_in_order:
        parts.append(f"Call the tools in this order: {', '.join(req.must_call_tools_in_order)}.")
    extra = {k: v for k, v in (req.model_extra or {}).items() if isinstance(v, str) and k.endswith("_decision")}
    for key, decision in sorted(extra.items()):
        parts.append(f"{key.removeprefix('on_').removesuffix('_decision').replace('_', ' ')}: decision {decision}.")
    if req.max_clarify_turns is not None:
        parts.append(f"Ask at most {req.max_clarify_turns} clarifying question(s).")
    branches = [f"when {' '.join(b.when.split())} go to {b.next}" for b in node.branches]
    if branches:
        parts.append("Branches: " + "; ".join(branches) + ".")
    return " ".join(parts)


def clause_line(clause_id: str, text: str) -> str:
    """How a clause is written into a prompt: ``- [P2_AUTH_GATE] Must verify identity ...``."""
    return f"- [{clause_id}] {text}"


def words(text: str) -> set[str]:
    """Lower-case word tokens (tool names and ids stay whole)."""
    return set(_WORD.findall(text.lower()))


def overlap(a: str, b: str) -> float:
    """Share of ``a``'s words that are in ``b`` (0 when ``a`` has none)."""
    wa = words(a)
    return len(wa & words(b)) / len(wa) if wa else 0.0
