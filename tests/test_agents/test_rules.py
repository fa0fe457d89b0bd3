"""The rule table: validation, policy passages, sentences, and the engine's side/activation logging."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adat.errors import UserError
from adat_reference.agent import RuleBook, RuleOverride, default_rules_path
from adat_reference.agent.rules import RuleEngine
from adat_reference.agent.sidelog import SideLog
from adat_reference.retail import default_policy_path


def _normalised(text: str) -> str:
    return " ".join(text.split())


def test_every_rule_cites_a_passage_of_the_policy() -> None:
    policy = _normalised(default_policy_path().read_text(encoding="utf-8"))
    for rule in RuleBook.load().rules.values():
        assert _normalised(rule.policy) in policy, rule.id


def test_every_sentence_renders() -> None:
    book = RuleBook.load()
    engine = RuleEngine(book)
    for rule in book.rules.values():
        for key in rule.sentences:
            text = engine.say(rule.id, key, order_id="#W0000001")
            assert text and "{" not in text, (rule.id, key)


def test_list_parameters_render_as_words() -> None:
    engine = RuleEngine(RuleBook.load())
    text = engine.say("cancel_reason_accepted", "ask", order_id="#W1")
    assert "'no longer needed' or 'ordered by mistake'" in text


@pytest.mark.parametrize(("content", "match"), [
    ("rules: [", "not valid YAML"),
    ("other: 1", "rules"),
    ("rules:\n  - {id: a, title: t, policy: p, sentences: {ask: x}}", "denied"),
    ("rules:\n  - {id: a, title: t, policy: p, sentences: {denied: x}}\n"
     "  - {id: a, title: t, policy: p, sentences: {denied: y}}", "duplicate"),
    ("rules:\n  - {id: a, title: t, sentences: {denied: x}}", "policy"),
])
def test_bad_rule_tables_are_user_errors(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=match) as err:
        RuleBook.load(path)
    assert str(path) in str(err.value)


def test_engine_logs_the_policy_side_and_records_activations() -> None:
    book = RuleBook.load(default_rules_path())
    faulty = RuleEngine(book, fault_rule="cancel_requires_pending",
                        override=RuleOverride(params={"statuses": ["pending", "processed"]}))
    log = SideLog()
    processed_ok = faulty.decide("cancel_requires_pending", lambda p: "processed" in p["statuses"], log, 3)
    delivered_ok = faulty.decide("cancel_requires_pending", lambda p: "delivered" in p["statuses"], log, 4)
    assert (processed_ok, delivered_ok) == (True, False)
    assert log.events == [("cancel_requires_pending", "denied", 3), ("cancel_requires_pending", "denied", 4)]
    assert log.activations == [("cancel_requires_pending", 3)]
    forced = RuleEngine(book, fault_rule="order_owner", override=RuleOverride(outcome="allowed"))
    assert forced.decide("order_owner", lambda _p: False, log, 5) is True
    assert log.events[-1] == ("order_owner", "denied", 5) and log.activations[-1] == ("order_owner", 5)
    rows = log.rule_events("run1", "s0001", "fault-x")
    assert rows[0].rule_id == "cancel_requires_pending" and rows[0].side == "denied" and rows[0].turn == 3


def test_shipped_table_round_trips_through_yaml() -> None:
    doc = yaml.safe_load(default_rules_path().read_text(encoding="utf-8"))
    assert [r["id"] for r in doc["rules"]] == RuleBook.load().ids()
