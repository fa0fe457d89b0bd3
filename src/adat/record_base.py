"""The bases of every warehouse record (kept apart so record modules of other packages, e.g.
:mod:`adat.spec_records`, can derive from them without importing :mod:`adat.records`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Record(BaseModel):
    """Base of every record: strict fields, no extras."""

    model_config = ConfigDict(extra="forbid", frozen=False)


class Produced(Record):
    """Provenance of a row an LLM role (or the offline stand-in) produced."""

    produced_by: str = Field("", description="provider/model that produced the row, e.g. offline/heuristic")
    prompt_id: str = Field("", description="id of the prompt template used")
    prompt_version: str = Field("", description="version of the prompt template used")
