"""The offline process-check role: a statement and the tool names seen, mapped to trace assertions.

Generic English only: a tool name is read as words (``snake_case`` / ``camelCase``), a *write* is a
tool whose name holds a verb that changes something (cancel, update, refund, ...), an *identity
check* one that finds or verifies a user, customer or account, and an *account tool* one whose
name holds a noun of the customer's own records. A statement is about confirmation when it says
the user confirms (or the agent needs a confirmation), about identity when it says the user
verifies or identifies themselves. A confirmation statement also holds the confirmed write to what
the agent confirmed (``args_confirmed``: the values the user said yes to). Nothing here names a tool, phrase or rule of any one agent;
a statement that is neither gets no checks (a model may map more: lookups, orders of calls).
"""

from __future__ import annotations

import re

from adat.contracts.process_check_roles import MappedAssertion, ProcessCheckInput, ProcessCheckOutput

#: verbs of a tool that changes something (the writes a confirmation guards)
WRITE_VERBS = frozenset({
    "cancel", "modify", "update", "change", "delete", "remove", "create", "add", "set", "return", "exchange",
    "refund", "book", "place", "submit", "pay", "charge", "edit", "send", "close", "reset", "replace", "issue",
    "register", "reserve", "approve", "swap", "switch", "upgrade", "downgrade", "renew", "transfer",
})
#: verbs of a tool that finds or verifies who someone is
IDENTIFY_VERBS = frozenset({"find", "lookup", "search", "verify", "authenticate", "identify", "login", "auth",
                            "validate"})
#: nouns of a person or their account
IDENTITY_NOUNS = frozenset({"user", "customer", "account", "identity", "member", "client", "person", "profile"})
#: nouns of the customer's own records (what an identity check guards)
ACCOUNT_NOUNS = IDENTITY_NOUNS | {"order", "booking", "reservation", "payment", "address", "subscription",
                                  "balance", "invoice", "ticket", "loan", "claim", "cart", "membership", "history",
                                  "record", "records"}
#: a handoff to a person changes no record of the customer's
HANDOFF_WORDS = frozenset({"human", "agent", "agents", "operator", "representative", "escalate"})
#: what a user says to confirm
CONFIRMATIONS = ["yes", "confirm", "go ahead", "proceed"]

_CONFIRM = re.compile(r"\bconfirm(s|ed|ing|ation)?\b|\bexplicit(ly)? (consent|approval|yes)\b")
_IDENTITY = re.compile(r"\b(verif(y|ies|ied|ication)|identif(y|ies|ied)|authenticat\w*|identity)\b")
_SPLIT = re.compile(r"[^a-z0-9]+")


def tool_words(name: str) -> list[str]:
    """``cancelOrder`` / ``cancel_order`` / ``cancel-order`` -> ['cancel', 'order']."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [w for w in _SPLIT.split(spaced.lower()) if w]


def is_write(name: str) -> bool:
    words = tool_words(name)
    return bool(words) and words[0] in WRITE_VERBS and not HANDOFF_WORDS & set(words)


def is_identity_check(name: str) -> bool:
    words = set(tool_words(name))
    return bool(words & IDENTIFY_VERBS) and bool(words & IDENTITY_NOUNS)


def is_account_tool(name: str) -> bool:
    words = set(tool_words(name))
    return bool(words & ACCOUNT_NOUNS) and not words & HANDOFF_WORDS and not is_identity_check(name)


def _stem(word: str) -> str:
    return word[:5]


def _writes_named(text: str, writes: list[str]) -> list[str]:
    """The writes whose verb the statement uses (cancel -> cancels / cancelled); else every write."""
    said = {_stem(w) for w in _SPLIT.split(text) if w}
    named = [t for t in writes if _stem(tool_words(t)[0]) in said]
    return named or writes


def map_statement(inp: ProcessCheckInput) -> ProcessCheckOutput:
    """Checks for a statement about confirming before a write (and writing what was confirmed) or
    identifying before account tools."""
    text = " ".join((inp.statement, inp.condition, inp.behavior)).lower()
    writes = [t for t in inp.tool_names if is_write(t)]
    gates = [t for t in inp.tool_names if is_identity_check(t)]
    out: list[MappedAssertion] = []
    if _CONFIRM.search(text) and writes:
        guarded = _writes_named(text, writes)
        out.append(MappedAssertion(kind="confirm_before", tools=guarded, values=list(CONFIRMATIONS),
                                   description="a change is made only after the agent asked and the user confirmed"))
        out.append(MappedAssertion(kind="args_confirmed", tools=guarded, values=list(CONFIRMATIONS),
                                   description="a change made on a confirmation is the one the agent confirmed"))
    guarded_by_identity = [t for t in inp.tool_names if is_account_tool(t)]
    if _IDENTITY.search(text) and gates and guarded_by_identity:
        out.append(MappedAssertion(kind="auth_gate", tools=[gates[0], *guarded_by_identity], gates=gates[1:],
                                   description="the customer's records are read or changed only after their "
                                               "identity was verified"))
    return ProcessCheckOutput(assertions=out)
