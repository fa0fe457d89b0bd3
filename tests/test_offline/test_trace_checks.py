"""The stand-in's process-check role: generic English over tool names it has never seen before."""

from __future__ import annotations

from adat.contracts.process_check_roles import ProcessCheckInput
from adat_offline.trace_checks import is_account_tool, is_identity_check, is_write, map_statement, tool_words

# a library's tools, not a retail agent's
TOOLS = sorted(["lookupMember", "verify_member_card", "renewLoan", "get_loan_history", "search_catalog",
                "escalate_to_librarian", "reserve_book"])


def _map(statement: str) -> list[tuple[str, list[str], list[str]]]:
    out = map_statement(ProcessCheckInput(statement=statement, tool_names=TOOLS))
    return [(a.kind, a.tools, a.gates) for a in out.assertions]


def test_tool_names_read_as_words() -> None:
    assert tool_words("renewLoan") == ["renew", "loan"] and tool_words("get_loan-history") == ["get", "loan", "history"]
    assert [t for t in TOOLS if is_write(t)] == ["renewLoan", "reserve_book"]
    assert [t for t in TOOLS if is_identity_check(t)] == ["lookupMember", "verify_member_card"]
    assert not is_account_tool("escalate_to_librarian") and is_account_tool("get_loan_history")


def test_a_confirmation_statement_guards_the_writes_it_names() -> None:
    assert _map("The agent renews a loan only after the member confirms.") == [
        ("confirm_before", ["renewLoan"], []), ("args_confirmed", ["renewLoan"], [])]
    assert _map("Every change needs the member's explicit confirmation.") == [
        ("confirm_before", ["renewLoan", "reserve_book"], []), ("args_confirmed", ["renewLoan", "reserve_book"], [])]


def test_an_identity_statement_gates_the_account_tools_on_any_identity_check() -> None:
    assert _map("Before anything else the agent must verify the member's identity.") == [
        ("auth_gate", ["lookupMember", "get_loan_history", "renewLoan"], ["verify_member_card"])]


def test_a_statement_about_words_gets_no_check() -> None:
    assert _map("The agent says the library opens at nine.") == []
    assert map_statement(ProcessCheckInput(statement="The member confirms the renewal.", tool_names=[])).assertions == []
