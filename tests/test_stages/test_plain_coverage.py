"""Coverage-aware plain tests (issue 28 item 4): every rule-like statement cluster gets a plain
test before a second test on a covered cluster, so a rule whose only statement ranks below the
budget is still tested; with room for all, the choice is the rank order unchanged."""

from __future__ import annotations

from adat.records import Statement
from adat.stages.statements import cluster_key, top_statements


def _st(i: int, condition: str, text: str) -> Statement:
    return Statement(statement_id=f"s{i}", run_id="r", text=text, condition=condition, behavior="b",
                     supporting_trace_id="t", supporting_turn=1, supporting_reply="x", rank=i, confidence=0.9)


RANKED = [
    _st(1, "a user asks to pause plan #P1 that is active", "The agent can only pause active plans."),
    _st(2, "a user asks to pause plan #P2 that is active", "The agent can only pause active plans, not #P2."),
    _st(3, "a user asks to pause plan #P3 that is active", "The agent must check plan #P3 first."),
    _st(4, "a user asks for a refund of 'late delivery'", "The agent says refunds are not possible for it."),
]


def test_a_rule_ranked_below_the_budget_is_tested_before_a_second_test_on_a_covered_rule() -> None:
    chosen = [s.statement_id for s in top_statements(RANKED, 2)]
    assert chosen == ["s1", "s4"]  # rank order kept; the refusal rule replaces a near-duplicate pause statement


def test_with_room_for_every_statement_the_rank_order_is_unchanged() -> None:
    assert [s.statement_id for s in top_statements(RANKED, 4)] == ["s1", "s2", "s3", "s4"]
    assert [s.statement_id for s in top_statements(RANKED, 3)] == ["s1", "s2", "s4"]


def test_clusters_ignore_ids_values_and_numbers() -> None:
    assert cluster_key(RANKED[0]) == cluster_key(RANKED[2]) == "a user asks to pause plan that is active"
