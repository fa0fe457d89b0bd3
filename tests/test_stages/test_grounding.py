"""Grounding: batches, confidence ranking with extraction-order ties, ungrounded kept unranked."""

from __future__ import annotations

from collections import Counter

from adat.llm.types import LLMError
from adat.stages.statements import ground_statements
from tests.test_stages.conftest import Roles, make_statement


def judged(index: int, grounded: bool, confidence: float) -> dict[str, object]:
    return {"index": index, "grounded": grounded, "confidence": confidence, "reason": ""}


def test_ranking_by_confidence_with_ties_in_extraction_order(roles: Roles) -> None:
    roles.cfg.statements.grounding_batch_size = 2
    statements = [make_statement(f"s{i}", i, confidence=0.0) for i in range(5)]
    grounder = roles.script("grounder", [
        {"items": [judged(1, True, 0.7), judged(0, True, 0.7)]},    # s0, s1 tie; answered out of order
        {"items": [judged(0, False, 0.9), judged(1, True, 0.95)]},  # s2 ungrounded, s3 best
        {"items": [judged(0, True, 0.7)]},                           # s4 ties with s0 and s1
    ])
    got = ground_statements(roles.cfg, roles.client(), list(reversed(statements)))

    assert len(grounder.requests) == 3
    assert [c["index"] for c in grounder.requests[0].variables["statements"]] == [0, 1]
    assert grounder.requests[0].variables["statements"][0]["supporting_reply"].startswith("Only pending")
    assert [(s.statement_id, s.rank) for s in got] == [("s3", 1), ("s0", 2), ("s1", 3), ("s4", 4), ("s2", None)]
    assert got[-1].grounded is False and got[-1].confidence == 0.9
    assert got[0].confidence == 0.95
    assert statements[3].rank is None  # inputs are not modified


def test_a_repeated_behaviour_ranks_after_every_distinct_behaviour(roles: Roles) -> None:
    same = "the agent needs to verify the user's identity"
    statements = [make_statement(f"s{i}", i).model_copy(update={"behavior": b}) for i, b in
                  enumerate([same, "the agent can only cancel pending orders", f"  {same.upper()} ", "beh s3"])]
    roles.script("grounder", [{"items": [judged(0, True, 0.9), judged(1, True, 0.8), judged(2, True, 0.9),
                                         judged(3, True, 0.6)]}])
    got = ground_statements(roles.cfg, roles.client(), statements)

    # s2 says what s0 says (case and spacing aside): after the weaker but distinct s1 and s3
    assert [(s.statement_id, s.rank) for s in got] == [("s0", 1), ("s1", 2), ("s3", 3), ("s2", 4)]


def test_missing_answers_and_failed_batches_count_as_ungrounded(roles: Roles) -> None:
    roles.cfg.statements.grounding_batch_size = 2
    statements = [make_statement(f"s{i}", i) for i in range(4)]
    roles.script("grounder", [{"items": [judged(0, True, 0.5), judged(0, True, 0.1)]}, LLMError("down")])
    counts: Counter[str] = Counter()
    got = ground_statements(roles.cfg, roles.client(), statements, counts=counts)
    assert [(s.statement_id, s.grounded, s.rank) for s in got] == [
        ("s0", True, 1), ("s1", False, None), ("s2", False, None), ("s3", False, None)]
    assert got[0].confidence == 0.5  # the first answer for an index wins
    assert counts["grounder_missing"] == 1 and counts["grounder_error"] == 2
