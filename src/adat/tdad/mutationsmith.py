"""MutationSmith (role ``mutationsmith``): one mutant artifact per mutation intent and attempt.

Its prompt is rendered from :class:`MutationSmithInput`: the compiled artifact, the intent and
the pack's constraints -- never a test. :func:`mutant_maker` binds the client.
"""

from __future__ import annotations

from typing import Any

from adat.contracts.tdad_roles import (
    PROMPT_MUTATIONSMITH,
    MutationSmithInput,
    MutationSmithOutput,
    apply_edit,
    tool_views,
)
from adat.llm.types import TesterLLM

ROLE = "mutationsmith"


def mutant_maker(client: TesterLLM, pack: Any) -> Any:
    """``make(compiled artifact, mutation, attempt) -> mutant artifact`` through the role."""

    def make(artifact: Any, mutation: Any, attempt: int) -> Any:
        inp = MutationSmithInput(mutation_id=mutation.id, intent=mutation.intent,
                                 constraints=list(pack.generator.constraints), system_prompt=artifact.system_prompt,
                                 tool_descriptions=tool_views(artifact.tool_descriptions), attempt=attempt)
        out = client.structured(ROLE, PROMPT_MUTATIONSMITH, inp.model_dump(), MutationSmithOutput,
                                cache_tag=f"attempt={attempt}")
        return apply_edit(artifact, out)

    return make
