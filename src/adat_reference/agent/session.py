"""One conversation's state: the session database, the authenticated user, open tasks, logs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adat.errors import ToolError
from adat_reference.agent.entities import PaymentRef
from adat_reference.agent.rules import Predicate, RuleEngine
from adat_reference.agent.sidelog import SideLog
from adat_reference.retail.database import Order, RetailDB, User
from adat_reference.retail.tools import WRITE_TOOLS, RetailTools


@dataclass
class ToolCall:
    """One tool call the agent made (evaluation only)."""

    name: str
    arguments: dict[str, Any]
    result: str | None = None
    error: str | None = None
    turn: int = 0


@dataclass
class Task:
    """A request the user made that the agent is working through, slot by slot."""

    kind: str  # cancel | modify_address | modify_payment | change_items | modify_items | exchange | return | user_address
    order_id: str | None = None
    reason: str | None = None
    pairs: list[tuple[str, str]] = field(default_factory=list)  # (old item id, new item id)
    items: list[str] = field(default_factory=list)  # item ids to return
    refs: list[PaymentRef] = field(default_factory=list)  # payment methods named, not yet resolved
    split_payment: bool = False
    payment_id: str | None = None
    address: dict[str, str] = field(default_factory=dict)
    ok: set[str] = field(default_factory=set)  # slots whose rules have passed: order, reason, address
    write: tuple[str, dict[str, Any], str] | None = None  # (tool, arguments, done sentence) awaiting 'yes'
    auth_logged: bool = False
    written: bool = False  # a silent fault made the write before the yes (agent.silent)
    texts: list[str] = field(default_factory=list)  # messages not yet read for items / products

    @property
    def confirming(self) -> bool:
        return self.write is not None

    def describe(self) -> str:
        """How the agent names the request in a sentence ('cancel an order')."""
        return {
            "cancel": "cancelling an order", "modify_address": "changing an order's shipping address",
            "modify_payment": "changing an order's payment method", "change_items": "changing items of an order",
            "modify_items": "changing items of a pending order", "exchange": "exchanging delivered items",
            "return": "returning delivered items", "user_address": "updating your default address",
            "order_info": "information about your orders", "profile_info": "information about your profile",
            "product_info": "information about our products",
        }.get(self.kind, "your request")


@dataclass
class Session:
    """Everything the agent keeps about one conversation."""

    session_id: str
    db: RetailDB
    engine: RuleEngine
    tools: RetailTools = field(init=False)
    log: SideLog = field(default_factory=SideLog)
    calls: list[ToolCall] = field(default_factory=list)
    turn: int = -1
    user_id: str | None = None
    tasks: list[Task] = field(default_factory=list)
    transferred: bool = False
    out_of_scope: bool = False  # the latest request was outside what the agent can do
    name_hint: tuple[str, str] | None = None
    zip_hint: str | None = None
    denied_this_turn: set[str] = field(default_factory=set)
    auth_pass: bool = False  # a fault let a request through auth_required unauthenticated
    shared_db: bool = False  # ``db`` is the agent's initial database, copied before the first write

    def __post_init__(self) -> None:
        self.tools = RetailTools(self.db)

    # -- rules ------------------------------------------------------------------------------------

    def check(self, rule_id: str, predicate: Predicate) -> bool:
        """Whether the request passes the rule for this agent variant (logged in the side log)."""
        return self.engine.decide(rule_id, predicate, self.log, self.turn)

    def holds(self, rule_id: str, condition: bool) -> bool:
        """``check`` for a rule whose decision does not depend on its parameters."""
        return self.check(rule_id, lambda _params: condition)

    def say(self, rule_id: str, key: str = "denied", **values: Any) -> str:
        return self.engine.say(rule_id, key, **values)

    def param(self, rule_id: str, name: str) -> Any:
        return self.engine.params(rule_id)[name]

    # -- data -------------------------------------------------------------------------------------

    @property
    def user(self) -> User | None:
        return self.db.users.get(self.user_id) if self.user_id else None

    def order(self, order_id: str | None) -> Order | None:
        return self.db.orders.get(order_id) if order_id else None

    def current(self) -> Task | None:
        return self.tasks[0] if self.tasks else None

    def call(self, name: str, **arguments: Any) -> str:
        """Call a tool, recording the call; ToolError propagates after it is recorded.

        A session on the shared initial database gets its own copy before its first write call
        (read tools never change the database), so sessions that only read copy nothing.
        """
        if self.shared_db and name in WRITE_TOOLS:
            self.db, self.shared_db = self.db.copy_fresh(), False
            self.tools = RetailTools(self.db)
        record = ToolCall(name, arguments, turn=self.turn)
        self.calls.append(record)
        try:
            record.result = self.tools.call(name, arguments)
        except ToolError as exc:
            record.error = str(exc)
            raise
        return record.result
