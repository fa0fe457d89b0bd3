"""Strict JSON schemas from pydantic models, answer validation and the price table."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from adat.llm.output_schema import OutputInvalid, parse_output, response_schema, schema_name
from adat.llm.pricing import call_cost_usd, price_per_mtok
from tests.test_llm.conftest import Answer


class Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    holds: bool | None = None


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["pass", "fail", "inconclusive"]
    main: Criterion = Field(description="the deciding criterion")
    criteria: list[Criterion] = Field(default_factory=list)


class FreeForm(BaseModel):
    scores: dict[str, float]


def _objects(node: object) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found.extend(_objects(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_objects(value))
    return found


def test_nested_model_schema_is_made_strict() -> None:
    schema, strict = response_schema(Verdict)
    assert strict
    objects = _objects(schema)
    assert len(objects) >= 2
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])  # type: ignore[arg-type]
    main = schema["properties"]["main"]
    assert "$ref" not in main and main["description"] == "the deciding criterion"  # $ref+sibling inlined
    assert "default" not in schema["$defs"]["Criterion"]["properties"]["holds"]
    assert Verdict.model_json_schema()["properties"]["main"].get("$ref")  # the model's own schema untouched


def test_free_form_mapping_falls_back_to_non_strict() -> None:
    schema, strict = response_schema(FreeForm)
    assert not strict and schema == FreeForm.model_json_schema()
    assert schema_name(FreeForm) == "FreeForm"


def test_parse_output_accepts_code_fences_and_names_bad_fields() -> None:
    assert parse_output('```json\n{"answer": 2}\n```', Answer) == Answer(answer=2)
    with pytest.raises(OutputInvalid, match="not valid JSON"):
        parse_output("{'answer': 2}", Answer)
    with pytest.raises(OutputInvalid, match=r"answer: .*integer"):
        parse_output('{"answer": "two"}', Answer)
    with pytest.raises(OutputInvalid, match="mood: Extra inputs"):
        parse_output('{"answer": 2, "mood": "ok"}', Answer)
    with pytest.raises(OutputInvalid, match="empty"):
        parse_output(None, Answer)


def test_prices_builtin_override_snapshot_and_unknown() -> None:
    assert price_per_mtok("openai", "gpt-4o-mini", {}) == (0.15, 0.60)
    assert price_per_mtok("openai", "gpt-4o-2024-08-06", {}) == (2.50, 10.00)
    assert price_per_mtok("openai", "gpt-4o-mini", {"gpt-4o-mini": (1.0, 2.0)}) == (1.0, 2.0)
    assert price_per_mtok("openai", "llama3", {"openai/llama3": (0.1, 0.1)}) == (0.1, 0.1)
    assert price_per_mtok("offline", "heuristic", {}) == (0.0, 0.0)
    assert price_per_mtok("openai", "my-local-model", {}) is None
    assert call_cost_usd("openai", "gpt-4o", 1_000_000, 100_000, {}) == (pytest.approx(3.5), True)
    assert call_cost_usd("openai", "my-local-model", 1000, 1000, {}) == (0.0, False)
