"""The base of every role contract model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Contract(BaseModel):
    """A role's input or output: unknown keys are an error, so a misspelt field in a model's
    answer (or in a stage's input) fails validation instead of being dropped."""

    model_config = ConfigDict(extra="forbid")
