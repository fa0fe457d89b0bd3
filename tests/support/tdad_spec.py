"""A TDAD spec written for the tests (not shipped): other tools, decisions and tree than the
benchmark specs, so a test that runs it proves nothing is specific to SupportOps/ExpenseGuard."""

from __future__ import annotations

import copy
from typing import Any

_STR = {"type": "string"}

LIBRARY_SPEC: dict[str, Any] = {
    "spec_id": "librarydesk_v1",
    "title": "LibraryDesk",
    "version": "1.0",
    "defaults": {"reliability": {"reruns": 3, "min_pass_rate": 0.9}, "compile_budget": {"max_iterations": 6}},
    "tools": [
        {"name": "check_member", "description": "Check a library member's card and PIN.",
         "input_schema": {"type": "object", "properties": {"card": _STR, "pin": _STR}, "required": ["card", "pin"]},
         "output_schema": {"type": "object", "properties": {"valid": {"type": "boolean"}}, "required": ["valid"]},
         "failure_modes": ["timeout"], "retry_policy": {"retries": 1, "on": ["timeout"]}},
        {"name": "list_loans", "description": "List the member's loans.",
         "input_schema": {"type": "object", "properties": {"card": _STR}, "required": ["card"]},
         "output_schema": {"type": "object", "properties": {
             "loans": {"type": "array", "items": {"type": "object", "properties": {
                 "loan_id": _STR, "title": _STR, "days_overdue": {"type": "integer"}}}},
             "max_overdue_days": {"type": "integer"},
             "private": {"type": "object", "description": "Never shown to the member.",
                         "properties": {"home_phone": _STR}}},
             "required": ["loans", "max_overdue_days"]},
         "failure_modes": ["timeout"], "retry_policy": {"retries": 0, "on": []}},
        {"name": "renew_loan", "description": "Renew one loan.",
         "input_schema": {"type": "object", "properties": {"loan_id": _STR}, "required": ["loan_id"]},
         "output_schema": {"type": "object", "properties": {"status": {"type": "string", "enum": ["renewed", "failed"]}},
                           "required": ["status"]}},
        {"name": "respond", "description": "Answer the member; call once per turn, last.",
         "input_schema": {"type": "object", "properties": {
             "node_id": _STR,
             "decision": {"type": "string", "enum": ["ASK_CARD_PIN", "MEMBER_REJECTED", "LOAN_RENEWED",
                                                     "RENEWAL_REFUSED", "LOANS_LISTED", "PRIVATE_REFUSED"]},
             "user_message": _STR},
             "required": ["node_id", "decision", "user_message"]},
         "output_schema": {"type": "object", "properties": {"acknowledged": {"type": "boolean"}}}},
    ],
    "policies": [
        {"id": "L1_PRIVATE", "priority": 100,
         "text": "Never reveal private data such as the home_phone from the tool output private object."},
        {"id": "L2_MEMBER_FIRST", "priority": 90, "text": "Call check_member before renew_loan."},
    ],
    "response_contract": {"required_json_fields": ["node_id", "decision", "user_message"],
                          "decision_enum": ["ASK_CARD_PIN", "MEMBER_REJECTED", "LOAN_RENEWED", "RENEWAL_REFUSED",
                                            "LOANS_LISTED", "PRIVATE_REFUSED"]},
    "decision_tree": [
        {"node_id": "R1_ROUTE", "description": "Work out what the member wants.",
         "branches": [{"when": "intent == private_data", "next": "END_PRIVATE_REFUSED"},
                      {"when": "intent == renew_loan", "next": "R2_MEMBER"},
                      {"when": "intent == list_loans", "next": "R3_LOANS"}]},
        {"node_id": "R2_MEMBER", "description": "Check the member before any renewal.",
         "requirements": {"if_missing_fields": ["card", "pin"], "on_missing_fields_decision": "ASK_CARD_PIN",
                          "must_call_tools_in_order": ["check_member", "list_loans"]},
         "branches": [{"when": "valid == false", "next": "END_MEMBER_REJECTED"},
                      {"when": "valid == true", "next": "R4_OVERDUE"}]},
        {"node_id": "R3_LOANS", "description": "List loans from the tool output.",
         "requirements": {"if_missing_fields": ["card"], "on_missing_fields_decision": "ASK_CARD_PIN",
                          "must_call_tools_in_order": ["list_loans"]},
         "branches": [{"when": "otherwise", "next": "END_LOANS_LISTED"}]},
        {"node_id": "R4_OVERDUE", "description": "Loans overdue too long are not renewed.",
         "branches": [{"when": "loan.days_overdue > max_overdue_days", "next": "END_RENEWAL_REFUSED"},
                      {"when": "otherwise", "next": "R5_RENEW"}]},
        {"node_id": "R5_RENEW", "description": "Renew the loan.",
         "requirements": {"must_call_tools_in_order": ["renew_loan"]},
         "branches": [{"when": "status == renewed", "next": "END_LOAN_RENEWED"}]},
        {"node_id": "END_PRIVATE_REFUSED", "description": "Refuse to share private data."},
        {"node_id": "END_MEMBER_REJECTED", "description": "Say the card or PIN did not match."},
        {"node_id": "END_LOANS_LISTED", "description": "List the loans, never private data."},
        {"node_id": "END_RENEWAL_REFUSED", "description": "Explain the loan is too overdue."},
        {"node_id": "END_LOAN_RENEWED", "description": "Confirm the renewal."},
    ],
    "tests": {"visible": {"min_types": ["MFT", "INV", "DIR"]},
              "hidden": {"generators": [{"type": "paraphrase"}, {"type": "boundary_values"},
                                        {"type": "tool_output_metamorphic"}]}},
}

LIBRARY_PACK: dict[str, Any] = {
    "mutation_pack_id": "librarydesk_mutations",
    "mutations": [
        {"id": "RENEW_WITHOUT_MEMBER_CHECK", "intent": "Renew loans without calling check_member.",
         "activation_probe": {"user_turns": ["Please renew my loan, card C-77 pin 4242"],
                              "expect_violation": {"trace": {"called": ["renew_loan"], "not_called": ["check_member"]}}}},
    ],
}

LIBRARY_SEED_PROMPT = """You are LibraryDesk, a library assistant.
You have tools: check_member, list_loans, renew_loan, respond.
Always call respond as your last action each turn with node_id, decision and user_message.
"""


def library_spec() -> dict[str, Any]:
    return copy.deepcopy(LIBRARY_SPEC)


def library_pack() -> dict[str, Any]:
    return copy.deepcopy(LIBRARY_PACK)


def clause_prompt(spec: Any, seed_prompt: str = LIBRARY_SEED_PROMPT, *, drop: tuple[str, ...] = ()) -> str:
    """The seed prompt plus every clause of ``spec`` as a ``- [ID] sentence`` line (the form the
    compiler writes), leaving out the ids in ``drop`` -- what a fully compiled prompt says."""
    lines = [f"- [{p.id}] {p.text}" for p in spec.policies if p.id not in drop]
    for node in spec.decision_tree:
        if node.node_id in drop:
            continue
        req = node.requirements
        parts = [node.description.rstrip(".") + "."]
        if req.if_missing_fields:
            ask = f"If any of {', '.join(req.if_missing_fields)} is missing, ask the user for it"
            parts.append(ask + (f" with decision {req.on_missing_fields_decision}." if req.on_missing_fields_decision else "."))
        if req.must_call_tools_in_order:
            parts.append(f"Call the tools in this order: {', '.join(req.must_call_tools_in_order)}.")
        if node.branches:
            parts.append("Branches: " + "; ".join(f"when {b.when} go to {b.next}" for b in node.branches) + ".")
        lines.append(f"- [{node.node_id}] {' '.join(parts)}")
    return seed_prompt + "\nRules:\n" + "\n".join(lines) + "\n"
