"""One place where the stages call an LLM role and learn which model and prompt produced the answer."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from adat.llm.prompts import load_prompt
from adat.llm.types import TesterLLM

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Provenance:
    """The ``Produced`` fields of a row: provider/model and prompt id + version."""

    produced_by: str = ""
    prompt_id: str = ""
    prompt_version: str = ""

    def fields(self) -> dict[str, str]:
        return asdict(self)


def call_role(client: TesterLLM, role: str, prompt_id: str, variables: BaseModel,
              output: type[T], *, cache_tag: str = "") -> tuple[T, Provenance]:
    """Ask ``role`` with the prompt ``prompt_id`` rendered from ``variables``; validated answer + provenance.

    ``cache_tag`` separates otherwise identical requests in the response cache (a repeated trial,
    a re-judgement). Raises :class:`adat.llm.types.LLMError` when the client gives up.
    """
    answer = client.structured(role, prompt_id, variables.model_dump(), output, cache_tag=cache_tag)
    return answer, provenance_of(client, role, prompt_id)


def provenance_of(client: TesterLLM, role: str, prompt_id: str) -> Provenance:
    """Provenance of the answers ``client`` gives ``role`` with ``prompt_id``: the model the run config
    names for the role (what the client called), the version from the same prompt file it rendered."""
    return Provenance(produced_by=str(client.cfg.models.for_role(role)), prompt_id=prompt_id,
                      prompt_version=_prompt_version(str(client.prompts_dir), prompt_id))


@lru_cache(maxsize=64)
def _prompt_version(prompts_dir: str, prompt_id: str) -> str:
    return load_prompt(prompt_id, Path(prompts_dir)).version
