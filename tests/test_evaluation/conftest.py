"""Shared pieces for the evaluation tests: hand-built tests and their executions on the
reference agent (original or a seeded fault)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from adat.evaluation.replay import Replayer
from adat.records import Execution, Side, TestCase, Verdict, VerdictValue
from adat.stages.execution import execute_test
from adat_reference.agent import ReferenceAgent, RuleBook

RUN = "r-eval"
CHLOE = "Hi, my email is chloe.costa1018@example.com."
REFUSES = "The agent refuses or says it cannot do what the user asked"
ACTS = "The agent reports the requested change as done"
ASKS_CONFIRMATION = "The agent asks the user for explicit confirmation before changing anything"
# chloe.costa1018@example.com: #W9741594 is pending, #W2962609 delivered (data/reference/retail/db.json)
BAD_REASON = "Please cancel order #W9741594 because I found a better price elsewhere."
BY_MISTAKE = "Please cancel order #W9741594, I ordered it by mistake."


def make_test(test_id: str, hints: Sequence[str], *, success: Sequence[str] = (REFUSES,),
              failure: Sequence[str] = (ACTS,), expected: Side | None = "denied",
              facts: Sequence[str] = ()) -> TestCase:
    return TestCase(test_id=test_id, run_id=RUN, kind="plain", goal="check the agent's behaviour",
                    step_hints=list(hints), success_criteria=list(success), failure_criteria=list(failure),
                    expected_side=expected, assumed_facts=list(facts))


def run_on(test: TestCase, variant: str = "original") -> Execution:
    """Execute ``test`` on a fresh reference agent of ``variant`` (as the runner does)."""
    agent = ReferenceAgent(fault=None if variant == "original" else variant)
    return execute_test(agent, test, RUN, agent_variant=variant)


def verdict(execution: Execution, value: VerdictValue) -> Verdict:
    return Verdict(run_id=RUN, execution_id=execution.execution_id, test_id=execution.test_id, verdict=value)


@pytest.fixture(scope="session")
def replayer() -> Replayer:
    return Replayer.for_database(None)


@pytest.fixture(scope="session")
def rules() -> RuleBook:
    return RuleBook.load()
