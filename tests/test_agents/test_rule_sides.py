"""Every rule of rules.yaml shows both sides on the generated database, and the side log records them."""

from __future__ import annotations

import pytest

from adat_reference.agent import RULE_IDS, RuleBook
from tests.test_agents.rule_cases import CASES

SIDES = ("allowed", "denied")


def test_every_rule_has_a_case_for_both_sides() -> None:
    ids = RuleBook.load().ids()
    assert len(ids) >= 25
    assert set(ids) == set(RULE_IDS)
    missing = [(rule, side) for rule in ids for side in SIDES if side not in CASES.get(rule, {})]
    assert not missing, f"rules without a scripted case: {missing}"
    assert set(CASES) <= set(ids), f"cases for unknown rules: {set(CASES) - set(ids)}"


@pytest.mark.parametrize(("rule_id", "side"), [(r, s) for r in CASES for s in SIDES])
def test_side_is_logged(rule_id: str, side: str, finder, converse) -> None:  # type: ignore[no-untyped-def]
    messages = CASES[rule_id][side](finder)
    agent, session, replies = converse(messages)
    log = agent.side_log(session)
    assert (rule_id, side) in [(r, s) for r, s, _ in log], (
        f"{rule_id}/{side} not logged.\n" + "\n".join(f"U: {m}\nA: {r}" for m, r in zip(messages, replies, strict=True))
        + f"\nlog: {log}")
    turns = [t for r, s, t in log if (r, s) == (rule_id, side)]
    assert all(0 <= t < len(messages) for t in turns)


@pytest.mark.parametrize("rule_id", [r for r in CASES if "denied" in CASES[r]])
def test_denial_is_stated_in_words(rule_id: str, finder, converse) -> None:  # type: ignore[no-untyped-def]
    """The reply at the turn of a denial says something (a refusal or a question), never nothing."""
    messages = CASES[rule_id]["denied"](finder)
    agent, session, replies = converse(messages)
    turn = next(t for r, s, t in agent.side_log(session) if (r, s) == (rule_id, "denied"))
    assert len(replies[turn]) > 20
