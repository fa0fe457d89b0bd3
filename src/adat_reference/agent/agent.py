"""The rule-based reference agent for the retail domain: a deterministic, side-logged target.

It enforces the rules of ``data/reference/retail/rules.yaml`` over a fresh copy of the retail
database per session, and states each rule in words when it refuses, asks or confirms. With a
fault id it becomes the faulty variant: the fault's override replaces one rule's parameters,
outcome or sentences, and the agent states the flipped behaviour just as consistently.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from adat.errors import TargetError, UserError
from adat.records import AgentToolCall
from adat.targets.base import AgentReply
from adat_reference.agent.dialogue import respond
from adat_reference.agent.faults import Fault, load_fault
from adat_reference.agent.rules import Outcome, RuleBook, RuleEngine, RuleOverride
from adat_reference.agent.session import Session, ToolCall
from adat_reference.retail.database import RetailDB, default_db_path

# Every rule id the agent's code evaluates; the rule table must define each of them.
RULE_IDS = (
    "auth_required", "auth_user_id_not_enough", "auth_lookup", "one_user", "order_exists", "order_owner",
    "confirm_before_write", "cancel_requires_pending", "cancel_reason_accepted", "modify_requires_pending",
    "modify_scope", "items_modified_once", "return_requires_delivered", "exchange_requires_delivered",
    "one_return_or_exchange", "items_in_order", "exchange_same_product", "modify_same_product",
    "new_item_available", "new_item_different", "payment_in_profile", "payment_change_different",
    "payment_change_single", "gift_card_balance", "return_refund_destination", "address_complete",
    "request_in_scope", "transfer_scope",
)


class ReferenceAgent:
    """Deterministic retail agent: ``reset``/``invoke`` for testers, side log and state for evaluation."""

    def __init__(self, db: RetailDB | None = None, *, rules_path: Path | str | None = None,
                 fault: str | None = None, fault_dir: Path | str | None = None,
                 force: tuple[str, Outcome] | None = None) -> None:
        """``fault``: a seeded fault id; ``force``: (rule id, outcome) forces one rule's decision
        without a fault file (how tests check that every rule can be flipped both ways)."""
        self._initial = db if db is not None else RetailDB.load(default_db_path())
        self.rules = RuleBook.load(rules_path)
        missing = [rule_id for rule_id in RULE_IDS if rule_id not in self.rules.rules]
        if missing:
            raise UserError(f"rule(s) {', '.join(missing)} missing", file=self.rules.source, field="rules",
                            fix="define every rule the reference agent evaluates (see the shipped rules.yaml)")
        self.fault: Fault | None = load_fault(fault, fault_dir) if fault else None
        if force is not None:
            if self.fault is not None:
                raise UserError("give a fault or a forced rule, not both", field="force",
                                fix="drop one of them")
            self._engine = RuleEngine(self.rules, fault_rule=force[0], override=RuleOverride(outcome=force[1]),
                                      fault_origin="force")
        elif self.fault is None:
            self._engine = RuleEngine(self.rules)
        else:
            self._engine = RuleEngine(self.rules, fault_rule=self.fault.rule, override=self.fault.override,
                                      fault_origin=self.fault.source)
        self.agent_id = "reference-retail" + (f"+{self.fault.id}" if self.fault else "") + (
            f"+{force[0]}={force[1]}" if force else "")
        self._sessions: dict[str, Session] = {}
        self._initial_hash: str | None = None
        self._lock = threading.Lock()

    # -- the target protocol ----------------------------------------------------------------------

    def reset(self) -> str:
        """Start a session on the database as it was given; ids are 's0001', 's0002', ...

        The session reads the agent's initial database and gets its own copy before its first
        write call (:meth:`Session.call`): no session sees another's changes.
        """
        with self._lock:
            session_id = f"s{len(self._sessions) + 1:04d}"
            self._sessions[session_id] = Session(session_id, self._initial, self._engine, shared_db=True)
        return session_id

    def invoke(self, session_id: str, user_message: str) -> AgentReply:
        """The agent's reply to ``user_message`` in the session, with the tool calls it made for it."""
        session = self._session(session_id)
        with self._lock:
            try:
                start = len(session.calls)
                text = respond(session, user_message)
                return AgentReply(text=text, tool_calls=[_reported(c, i) for i, c in enumerate(session.calls[start:])])
            except UserError:
                raise
            except Exception as exc:  # a crash of the agent is the target failing, as for any target
                raise TargetError(f"reference agent failed on turn {session.turn}: {exc!r}") from exc

    # -- evaluation only (never shown to a tester) ------------------------------------------------

    def side_log(self, session_id: str) -> list[tuple[str, str, int]]:
        """(rule_id, 'allowed'|'denied', user-turn index) for every rule evaluated, in order."""
        return list(self._session(session_id).log.events)

    def decisions(self, session_id: str) -> list[tuple[str, str, int]]:
        """(rule_id, side, turn) like :meth:`side_log`, but the side this agent variant took."""
        return list(self._session(session_id).log.decisions)

    def fault_activations(self, session_id: str) -> list[tuple[str, int]]:
        """(rule_id, turn) where the fault made this agent decide unlike the shipped rule."""
        return list(self._session(session_id).log.activations)

    def session_db(self, session_id: str) -> RetailDB:
        """The session's database as it is now (for end-state comparisons; read it, do not change it:
        a session that has not written yet shares the agent's initial database)."""
        return self._session(session_id).db

    def session_db_hash(self, session_id: str) -> str:
        """``session_db(session_id).canonical_hash()``, computed once for every session that wrote nothing."""
        session = self._session(session_id)
        if not session.shared_db:
            return session.db.canonical_hash()
        if self._initial_hash is None:
            self._initial_hash = self._initial.canonical_hash()
        return self._initial_hash

    def tool_calls(self, session_id: str) -> list[ToolCall]:
        """Every tool call of the session, with its result or error."""
        return list(self._session(session_id).calls)

    def _session(self, session_id: str) -> Session:
        try:
            return self._sessions[session_id]
        except KeyError:
            raise TargetError(f"unknown session {session_id!r}; call reset() first") from None


def _reported(call: ToolCall, order: int) -> AgentToolCall:
    """A tool call of the session as the agent reports it with its reply (results are JSON text)."""
    result = None
    if call.result is not None and call.error is None:
        try:
            result = json.loads(call.result)
        except ValueError:
            result = call.result
    return AgentToolCall.make(call.name, call.arguments, result, error=call.error, order=order)
