"""Random multi-turn conversations: the agent always answers, and the original agent never writes
without an explicit yes nor makes a write the tools refuse (its rules check first)."""

from __future__ import annotations

import random

from adat_reference.agent import ReferenceAgent, fault_ids
from adat_reference.retail import WRITE_TOOLS

FRAGMENTS = [
    "cancel", "return", "exchange", "change", "modify the address", "pay with my gift card", "paypal", "yes", "no",
    "ok", "human please", "what's the status", "the {p}", "item {i}", "for item {i}", "{o}", "my email is {e}",
    "I'm {n}, zip {z}", "my user id is {u}", "because I ordered by mistake", "I don't need it",
    "12 Oak Street, Springfield, IL 62704", "default address", "everything", "except the {p}", "only the {p}",
    "to my credit card", "the visa ending in 1234", "split the payment", "buy a laptop", "add an item to my order",
    "thanks", "?", "", "hi",
]


def test_random_conversations(retail_db) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    users = [u for u in retail_db.users.values() if u.orders]
    all_items = [v.item_id for p in retail_db.products.values() for v in p.variants.values()]
    original = ReferenceAgent(retail_db)
    agents = [original] + [ReferenceAgent(retail_db, fault=f) for f in fault_ids()]
    checked: list[str] = []
    for trial in range(160):
        agent = original if trial % 2 == 0 else rng.choice(agents)
        session = agent.reset()
        if agent is original:
            checked.append(session)
        user = rng.choice(users)
        for turn in range(rng.randint(1, 7)):
            order = retail_db.orders[rng.choice(user.orders)]
            line = rng.choice(order.items)
            text = " ".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 3))).format(
                p=line.name, i=rng.choice([line.item_id] + all_items[:40]), o=order.order_id, e=user.email,
                n=f"{user.name.first_name} {user.name.last_name}", z=user.address.zip, u=user.user_id)
            if turn == 0 and trial % 4:
                text = f"my email is {user.email}. {text}"
            assert agent.invoke(session, text).text.strip()
    for session in checked:
        log = original.side_log(session)
        for call in original.tool_calls(session):
            if call.name in WRITE_TOOLS:
                assert call.error is None, (session, call)
                assert ("confirm_before_write", "allowed", call.turn) in log
