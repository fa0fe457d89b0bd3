"""Every shipped prompt renders byte-identically to the renderer before jinja2 (regex ``{{ }}``).

``prompt_renders.json`` holds the sha256 of each prompt's messages, rendered on the samples of
``prompt_samples.py`` by the old renderer (commit "prompt renders recorded before jinja2"). A prompt
whose text changed on purpose since (a new version: judge, auditor, auditor_execution, planner,
generate_plain, generate_transformed, process_checks, for issues 27 and 28) is re-recorded in the commit that says so.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from adat.llm.prompts import load_prompt

from .prompt_samples import sample_variables

PROMPTS = Path(__file__).resolve().parents[2] / "catalogs" / "prompts"
RECORDED: dict[str, str] = json.loads((Path(__file__).with_name("prompt_renders.json")).read_text())


def test_every_shipped_prompt_was_recorded() -> None:
    assert {key.split("/")[0] for key in RECORDED} == {p.stem for p in PROMPTS.glob("*.yaml")}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_render_matches_the_recorded_render(key: str) -> None:
    prompt_id, kind = key.split("/")
    template = load_prompt(prompt_id, PROMPTS)
    messages = template.render(sample_variables(list(template.variables), kind))
    digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()
    assert digest == RECORDED[key], f"{prompt_id} ({kind} samples) renders differently than before"
