"""The reference agent as a target: protocol, sessions, determinism, multi-turn flows, bad rule tables."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adat.errors import TargetError, UserError
from adat.targets.base import SideLogged, Target
from adat_reference.agent import ReferenceAgent, default_rules_path
from tests.test_agents.rule_cases import CASES
from tests.test_agents.scenarios import login


def test_implements_the_target_and_side_log_protocols(retail_db) -> None:  # type: ignore[no-untyped-def]
    agent = ReferenceAgent(retail_db)
    assert isinstance(agent, Target) and isinstance(agent, SideLogged)
    assert agent.agent_id == "reference-retail"
    assert [agent.reset(), agent.reset()] == ["s0001", "s0002"]


def test_unknown_session_is_a_target_error(retail_db) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TargetError, match="s9999"):
        ReferenceAgent(retail_db).invoke("s9999", "hello")


def test_same_messages_give_same_replies_logs_and_state(finder, converse) -> None:  # type: ignore[no-untyped-def]
    user, order = finder.user_order("pending")
    script = [login(user), f"Please cancel {order.order_id}.", "I ordered it by mistake", "yes"]
    runs = [converse(script) for _ in range(2)]
    (a1, s1, r1), (a2, s2, r2) = runs
    assert r1 == r2
    assert a1.side_log(s1) == a2.side_log(s2)
    assert a1.session_db(s1).canonical_hash() == a2.session_db(s2).canonical_hash()
    assert a1.session_db(s1).orders[order.order_id].status == "cancelled"


def test_sessions_are_isolated_and_start_fresh(finder, retail_db) -> None:  # type: ignore[no-untyped-def]
    user, order = finder.user_order("pending")
    agent = ReferenceAgent(retail_db)
    first = agent.reset()
    for message in [login(user), f"Cancel {order.order_id}, I no longer need it.", "yes"]:
        agent.invoke(first, message)
    second = agent.reset()
    assert agent.session_db(first).orders[order.order_id].status == "cancelled"
    assert agent.session_db(second).orders[order.order_id].status == "pending"
    assert retail_db.orders[order.order_id].status == "pending"
    assert agent.side_log(second) == []
    assert [c.name for c in agent.tool_calls(first)] == ["find_user_id_by_email", "cancel_pending_order"]


def test_details_can_arrive_over_several_turns(finder, converse) -> None:  # type: ignore[no-untyped-def]
    """Intent first, identity by name then zip, the order id, the reason, then the confirmation."""
    user, order = finder.user_order("pending")
    script = ["I need to cancel an order.", f"I'm {user.name.first_name} {user.name.last_name}.",
              f"My zip code is {user.address.zip}.", f"It's {order.order_id}.",
              "I don't need it anymore.", "Yes please."]
    agent, session, replies = converse(script)
    assert "verify your identity" in replies[0]
    assert "zip code" in replies[1]
    assert "verified your identity" in replies[2]
    assert "'no longer needed'" in replies[4] and "yes" in replies[4]
    assert agent.session_db(session).orders[order.order_id].status == "cancelled"
    assert agent.session_db(session).orders[order.order_id].cancel_reason == "no longer needed"


def test_a_hedged_answer_is_not_consent(finder, converse) -> None:  # type: ignore[no-untyped-def]
    user, order = finder.user_order("pending")
    agent, session, replies = converse([login(user), f"Cancel {order.order_id}, ordered by mistake.",
                                        "hmm, yes but no", "ok"])
    assert "explicit 'yes'" in replies[2]
    assert ("confirm_before_write", "denied", 2) in agent.side_log(session)
    assert agent.session_db(session).orders[order.order_id].status == "cancelled"


def test_after_a_transfer_the_agent_stays_out(finder, converse) -> None:  # type: ignore[no-untyped-def]
    agent, session, replies = converse(CASES["transfer_scope"]["allowed"](finder) + ["cancel my order"])
    assert replies[2] == "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."
    assert "transferred" in replies[3]
    assert [c.name for c in agent.tool_calls(session)][-1] == "transfer_to_human_agents"


def test_side_log_never_leaks_into_replies(finder, converse) -> None:  # type: ignore[no-untyped-def]
    for rule, sides in CASES.items():
        _, _, replies = converse(sides["denied"](finder))
        assert not any(rule in reply or "denied" in reply for reply in replies)


def test_rule_table_without_a_rule_is_a_user_error(tmp_path: Path, retail_db) -> None:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load(default_rules_path().read_text(encoding="utf-8"))
    doc["rules"] = [r for r in doc["rules"] if r["id"] != "gift_card_balance"]
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(UserError, match="gift_card_balance"):
        ReferenceAgent(retail_db, rules_path=path)


def test_rule_table_parameters_change_behaviour(tmp_path: Path, finder, retail_db) -> None:  # type: ignore[no-untyped-def]
    """Parameters live in the YAML: a third accepted reason is accepted and stated."""
    doc = yaml.safe_load(default_rules_path().read_text(encoding="utf-8"))
    rule = next(r for r in doc["rules"] if r["id"] == "cancel_reason_accepted")
    rule["params"]["reasons"].append("found a better price")
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    user, order = finder.user_order("pending")
    agent = ReferenceAgent(retail_db, rules_path=path)
    session = agent.reset()
    agent.invoke(session, login(user))
    reply = agent.invoke(session, f"Cancel {order.order_id}.").text
    assert "'found a better price'" in reply
