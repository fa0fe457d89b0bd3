"""Plain tests: one generation attempt per chosen grounded statement (paper §3.1).

The n statements are chosen to cover every rule-like statement cluster before a second test on
a covered one (:func:`top_statements`).

The generator gets the statement, its supporting reply and the discovery conversation up to that
reply, and writes a test for the side of the boundary the statement describes. The attempts are
independent, so up to ``llm.concurrency`` run at once; tests and failures keep rank order.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from adat.config import RunConfig
from adat.contracts.adat2_roles import PROMPT_PLAIN, GeneratedTest, PlainInput
from adat.llm.types import LLMError, TesterLLM
from adat.records import Statement, TestCase, Trace
from adat.stages.concurrency import call_or_error, map_in_order
from adat.stages.ids import plain_test_id
from adat.stages.provenance import Provenance, call_role
from adat.stages.views import statement_view, supporting_context, test_from_generated

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GenerationFailure:
    """A statement for which the generator wrote no test, and why."""

    statement_id: str
    reason: str


#: words that make a statement rule-like: it states a condition the agent's decision depends on
_RULE_WORDS = re.compile(r"\b(only|must|unless|cannot|can't|not|never|require[sd]?|needs?|allowed)\b", re.I)
_VALUES = re.compile(r"'[^']*'|\"[^\"]*\"|#?\b\w*\d\w*\b")


def cluster_key(statement: Statement) -> str:
    """The statement's cluster: its condition without the quoted values, ids and numbers it
    names, so that statements of one rule on different entities or values share a cluster."""
    return " ".join(_VALUES.sub(" ", statement.condition.lower()).split())


def is_rule_like(statement: Statement) -> bool:
    """Whether the statement states a rule (a condition word: only, must, unless, not, ...)."""
    return bool(_RULE_WORDS.search(statement.text))


def top_statements(statements: Sequence[Statement], n: int) -> list[Statement]:
    """``n`` grounded statements, in rank order, chosen to cover every rule-like cluster
    (:func:`cluster_key`) before a second test on a covered one (issue 28 item 4): the best-ranked
    statement of each rule-like cluster first (in rank order while they fit), then the rest by
    rank. A statement ranked below the budget that is the only one on its rule still gets a test."""
    ranked = sorted((s for s in statements if s.grounded and s.rank is not None), key=lambda s: s.rank or 0)
    if len(ranked) <= n:
        return ranked
    firsts: dict[str, Statement] = {}
    for s in ranked:
        if is_rule_like(s):
            firsts.setdefault(cluster_key(s), s)
    chosen = {s.statement_id for s in list(firsts.values())[:n]}
    for s in ranked:
        if len(chosen) >= n:
            break
        chosen.add(s.statement_id)
    return [s for s in ranked if s.statement_id in chosen]


def generate_plain_tests(cfg: RunConfig, client: TesterLLM, statements: Sequence[Statement],
                         traces: Sequence[Trace], run_id: str) -> tuple[list[TestCase], list[GenerationFailure]]:
    """At most one plain test for each of the top ``cfg.generation.n`` statements, in rank order.

    A statement whose generator call fails gets a :class:`GenerationFailure` (failures also in
    rank order) instead of a test.
    """
    by_trace = {t.trace_id: t for t in traces}
    chosen = top_statements(statements, cfg.generation.n)

    def generate(statement: Statement) -> tuple[GeneratedTest, Provenance]:
        trace = by_trace.get(statement.supporting_trace_id)
        context = supporting_context(trace, statement.supporting_turn) if trace is not None else []
        plain_in = PlainInput(statement=statement_view(statement), supporting_reply=statement.supporting_reply,
                              supporting_context=context, tester_facts=list(cfg.tester_facts),
                              turn_limit=cfg.generation.turn_limit)
        return call_role(client, "generator", PROMPT_PLAIN, plain_in, GeneratedTest)

    answers = map_in_order(call_or_error(generate), chosen, cfg.llm.concurrency, name="adat-plain")
    tests: list[TestCase] = []
    failures: list[GenerationFailure] = []
    for statement, answer in zip(chosen, answers, strict=True):
        if isinstance(answer, LLMError):
            log.warning("plain test for %s failed: %s", statement.statement_id, answer)
            failures.append(GenerationFailure(statement.statement_id, f"generator error: {answer}"))
            continue
        generated, produced = answer
        tests.append(test_from_generated(
            generated, test_id=plain_test_id(run_id, statement.statement_id), run_id=run_id, kind="plain",
            turn_limit=cfg.generation.turn_limit, statement_id=statement.statement_id, produced=produced,
            provenance=f"plain test of statement {statement.statement_id}: {statement.text}",
        ))
    return tests, failures
