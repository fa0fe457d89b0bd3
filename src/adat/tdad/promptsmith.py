"""PromptSmith, the compiler role (``promptsmith``): one candidate edit of the prompt artifact
from the visible failures grouped by spec clause.

:func:`promptsmith_proposer` binds the LLM client to :data:`adat.tdad.compiler.Propose`. Its
prompt is rendered from :class:`PromptSmithInput` only: the artifact, the spec's decision enum
and the failing *visible* tests with their clauses -- there is no field a hidden test could reach.
"""

from __future__ import annotations

from typing import Any

from adat.contracts.tdad_roles import (
    PROMPT_PROMPTSMITH,
    ClauseFailures,
    PromptSmithInput,
    PromptSmithOutput,
    apply_edit,
    tool_views,
)
from adat.llm.types import TesterLLM

ROLE = "promptsmith"


def promptsmith_input(spec: Any, artifact: Any, failures: list[ClauseFailures], visible_tests: int,
                      visible_passed: int, attempt: int) -> PromptSmithInput:
    return PromptSmithInput(spec_title=spec.title or spec.spec_id, system_prompt=artifact.system_prompt,
                            tool_descriptions=tool_views(artifact.tool_descriptions),
                            decision_enum=list(spec.response_contract.decision_enum), failures=failures,
                            visible_tests=visible_tests, visible_passed=visible_passed, attempt=attempt)


def promptsmith_proposer(client: TesterLLM, spec: Any) -> Any:
    """A ``Propose`` callable asking the ``promptsmith`` role for each candidate."""

    def propose(artifact: Any, failures: list[ClauseFailures], visible_tests: int, visible_passed: int,
                attempt: int) -> Any:
        inp = promptsmith_input(spec, artifact, failures, visible_tests, visible_passed, attempt)
        out = client.structured(ROLE, PROMPT_PROMPTSMITH, inp.model_dump(), PromptSmithOutput,
                                cache_tag=f"attempt={attempt}")
        return apply_edit(artifact, out)

    return propose
