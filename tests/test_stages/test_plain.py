"""Plain tests: top-n grounded statements in rank order, one attempt each, failures reported."""

from __future__ import annotations

from adat.llm.types import LLMError
from adat.stages.ids import plain_test_id
from adat.stages.statements import generate_plain_tests
from tests.test_stages.conftest import RUN, Roles, make_statement, make_trace

TEST = {"goal": "agent refuses to cancel a delivered order", "step_hints": ["cancel order #1"],
        "success_criteria": ["agent refuses"], "failure_criteria": ["agent cancels"],
        "expected_side": "denied", "assumed_facts": ["order #1 is delivered"]}


def test_top_n_in_rank_order_with_context_and_failures(roles: Roles) -> None:
    roles.cfg.generation.n = 2
    roles.cfg.generation.turn_limit = 7
    trace = make_trace("tr-1", "cancel #1", "Only pending orders can be cancelled.", "ok", "Bye.")
    statements = [make_statement("a", 0, rank=2), make_statement("b", 1, rank=None, grounded=False),
                  make_statement("c", 2, rank=1), make_statement("d", 3, rank=3)]
    generator = roles.script("generator", [LLMError("down"), TEST])
    tests, failures = generate_plain_tests(roles.cfg, roles.client(), statements, [trace], RUN)

    assert [r.variables["statement"]["statement_id"] for r in generator.requests] == ["c", "a"]
    first = generator.requests[0].variables
    assert [t["text"] for t in first["supporting_context"]] == ["cancel #1", "Only pending orders can be cancelled."]
    assert first["tester_facts"] == ["user email: ann@example.com"] and first["turn_limit"] == 7
    assert [(f.statement_id, f.reason.startswith("generator error")) for f in failures] == [("c", True)]
    [test] = tests
    assert test.test_id == plain_test_id(RUN, "a") and test.kind == "plain" and test.statement_id == "a"
    assert test.turn_limit == 7 and test.expected_side == "denied"
    assert test.step_hints == ["cancel order #1"] and test.assumed_facts == ["order #1 is delivered"]
    assert test.produced_by == "fake/generator" and test.prompt_id == "generate_plain"
    assert test.prompt_version == "3"
