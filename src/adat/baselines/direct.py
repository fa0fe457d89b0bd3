"""The direct baseline: boundary tests written straight from the discovery traces (paper §4.2).

It isolates what statements contribute: the generator gets every discovery trace and the tests
it already wrote, but no statement or instruction, and writes up to ``max_tests`` boundary tests
in batches (``catalogs/prompts/generate_direct.yaml``). It stops when

* it says the traces support no further tests (``exhausted``),
* ``max_tests`` tests exist (``limit``),
* a batch adds no new test although it did not say so (``no_progress``: a guard against a
  generator that never sets ``exhausted``), or
* the generator fails (``generator_error``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from adat.config import RunConfig
from adat.contracts.adat2_roles import PROMPT_DIRECT, DirectInput, DirectOutput
from adat.llm.types import LLMError, TesterLLM
from adat.records import TestCase, Trace
from adat.stages.ids import stable_id
from adat.stages.provenance import call_role
from adat.stages.views import test_from_generated, test_view, trace_view

log = logging.getLogger(__name__)

StopReason = Literal["exhausted", "limit", "no_progress", "generator_error"]


@dataclass
class DirectResult:
    tests: list[TestCase]
    stop_reason: StopReason
    batches: int
    duplicates: int = 0
    errors: list[str] = field(default_factory=list)


def direct_test_id(run_id: str, number: int) -> str:
    """Id of the ``number``-th (1-based) direct test of a run."""
    return stable_id("te", run_id, "direct", number)


def generate_direct_tests(cfg: RunConfig, client: TesterLLM, traces: Sequence[Trace], run_id: str) -> DirectResult:
    """Ask the generator for batches of direct tests until one of the stop conditions holds."""
    limit = cfg.baselines.direct_max_tests or cfg.generation.n
    views = [trace_view(t) for t in traces]
    tests: list[TestCase] = []
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    duplicates = batches = 0
    while len(tests) < limit:
        want = min(cfg.baselines.direct_batch_size, limit - len(tests))
        request = DirectInput(discovery_traces=views, existing_tests=[test_view(t) for t in tests],
                              tester_facts=list(cfg.tester_facts), turn_limit=cfg.generation.turn_limit,
                              max_tests=want)
        try:
            answer, produced = call_role(client, "generator", PROMPT_DIRECT, request, DirectOutput)
        except LLMError as exc:
            log.warning("direct generation stopped after %d tests: %s", len(tests), exc)
            return DirectResult(tests, "generator_error", batches, duplicates, [str(exc)])
        batches += 1
        added = 0
        for generated in answer.tests[:want]:
            generated = generated.model_copy(update={"step_hints": generated.step_hints[: cfg.generation.turn_limit]})
            key = (tuple(generated.step_hints), tuple(generated.success_criteria))
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            added += 1
            number = len(tests) + 1
            tests.append(test_from_generated(
                generated, test_id=direct_test_id(run_id, number), run_id=run_id, kind="direct",
                turn_limit=cfg.generation.turn_limit, produced=produced,
                provenance=f"direct test {number} (batch {batches}) from {len(traces)} discovery traces",
            ))
        if answer.exhausted:
            return DirectResult(tests, "exhausted", batches, duplicates)
        if added == 0:
            return DirectResult(tests, "no_progress", batches, duplicates)
    return DirectResult(tests, "limit", batches, duplicates)
