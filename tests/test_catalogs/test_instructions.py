"""The shipped instruction catalog is complete and valid; bad catalogs give one-line errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from adat.errors import UserError
from adat.instruction_catalog import FACTORS, load_instructions

NAMED_IN_ISSUE = ["value-change-one", "value-numeric-zero", "value-make-related-equal", "confirmation-partial",
                  "wording-paraphrase", "state-conversation-established"]


def test_shipped_catalog_has_at_least_91_valid_instructions() -> None:
    catalog = load_instructions()
    assert len(catalog) >= 91
    ids = [i.instruction_id for i in catalog]
    assert len(set(ids)) == len(ids)
    assert set(NAMED_IN_ISSUE) <= set(ids)
    factors = Counter(i.factor for i in catalog)
    assert set(factors) == set(FACTORS) and min(factors.values()) >= 3
    assert all(i.instruction_id.startswith(i.factor + "-") for i in catalog)
    priors = [i.prior_applicability for i in catalog]
    assert min(priors) < 0.2 and max(priors) > 0.8  # the prior separates rare from common instructions


def _write(tmp_path: Path, entries: object) -> Path:
    p = tmp_path / "instructions.yaml"
    p.write_text(yaml.safe_dump({"catalog_version": 1, "instructions": entries}))
    return p


def _entry(**over: object) -> dict[str, object]:
    base: dict[str, object] = {"instruction_id": "value-x", "title": "T", "text": "Change x.", "factor": "value",
                               "applicability": "Always.", "prior_applicability": 0.5}
    base.update(over)
    return base


@pytest.mark.parametrize(("entries", "expected"), [
    ([_entry(), _entry()], "instructions[1] (value-x).instruction_id: duplicate instruction_id"),
    ([_entry(), {k: v for k, v in _entry(instruction_id="value-y").items() if k != "text"}],
     "instructions[1] (value-y).text: missing or empty"),
    ([_entry(prior_applicability=1.5)], "instructions[0] (value-x).prior_applicability: prior_applicability must"),
    ([_entry(prior_applicability="high")], "instructions[0] (value-x).prior_applicability"),
    ([_entry(factor="wordng")], "instructions[0] (value-x).factor: unknown factor 'wordng'"),
    ([_entry(instruction_id="Value X")], "instructions[0] (Value X).instruction_id: not a slug"),
    ([_entry(colour="red")], "instructions[0] (value-x).colour: unknown field"),
    (["just text"], "instructions[0]: entry is not a mapping"),
    ([], "the catalog has no instructions"),
])
def test_bad_entries_name_file_entry_field_and_fix(tmp_path: Path, entries: object, expected: str) -> None:
    path = _write(tmp_path, entries)
    with pytest.raises(UserError) as err:
        load_instructions(path)
    message = str(err.value)
    assert message.startswith(str(path)) and expected in message and "(fix:" in message
    assert "\n" not in message


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="file not found"):
        load_instructions(tmp_path / "none.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("instructions: [\n")
    with pytest.raises(UserError, match="not valid YAML"):
        load_instructions(bad)
    bad.write_text("- a\n- b\n")
    with pytest.raises(UserError, match="'instructions' list"):
        load_instructions(bad)
