"""Plain tests: one generation attempt per top-n grounded statement (paper §3.1).

The generator gets the statement, its supporting reply and the discovery conversation up to that
reply, and writes a test for the side of the boundary the statement describes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adat.config import RunConfig
from adat.llm.types import LLMError
from adat.records import Statement, TestCase, Trace
from adat.roles import PROMPT_PLAIN, GeneratedTest, PlainInput
from adat.stages.ids import plain_test_id
from adat.stages.provenance import call_role
from adat.stages.views import statement_view, supporting_context, test_from_generated

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GenerationFailure:
    """A statement for which the generator wrote no test, and why."""

    statement_id: str
    reason: str


def top_statements(statements: Sequence[Statement], n: int) -> list[Statement]:
    """The ``n`` best-ranked grounded statements, in rank order."""
    ranked = sorted((s for s in statements if s.grounded and s.rank is not None), key=lambda s: s.rank or 0)
    return ranked[:n]


def generate_plain_tests(cfg: RunConfig, client: Any, statements: Sequence[Statement],
                         traces: Sequence[Trace], run_id: str) -> tuple[list[TestCase], list[GenerationFailure]]:
    """At most one plain test for each of the top ``cfg.generation.n`` statements, in rank order."""
    by_trace = {t.trace_id: t for t in traces}
    tests: list[TestCase] = []
    failures: list[GenerationFailure] = []
    for statement in top_statements(statements, cfg.generation.n):
        trace = by_trace.get(statement.supporting_trace_id)
        context = supporting_context(trace, statement.supporting_turn) if trace is not None else []
        plain_in = PlainInput(statement=statement_view(statement), supporting_reply=statement.supporting_reply,
                              supporting_context=context, tester_facts=list(cfg.tester_facts),
                              turn_limit=cfg.generation.turn_limit)
        try:
            generated, produced = call_role(client, "generator", PROMPT_PLAIN, plain_in, GeneratedTest)
        except LLMError as exc:
            log.warning("plain test for %s failed: %s", statement.statement_id, exc)
            failures.append(GenerationFailure(statement.statement_id, f"generator error: {exc}"))
            continue
        tests.append(test_from_generated(
            generated, test_id=plain_test_id(run_id, statement.statement_id), run_id=run_id, kind="plain",
            turn_limit=cfg.generation.turn_limit, statement_id=statement.statement_id, produced=produced,
            provenance=f"plain test of statement {statement.statement_id}: {statement.text}",
        ))
    return tests, failures
