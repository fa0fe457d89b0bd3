"""Mutation packs in the TDAD paper's predicate keys load next to adat's spellings, and
``order_violation.must_not_happen`` means what the paper means (A, then B after it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adat.errors import UserError
from adat.mutation import predicates_hold
from adat.tdad.pack_model import MutationPack
from adat.tdad.spec_loader import load_mutation_pack
from tests.test_tdad.loop_fakes import result, spec_test

CASES = Path(__file__).resolve().parents[2] / "benchmarks" / "cases" / "tdad" / "mutation_packs" / "parceldesk"


def _pack(violation: dict[str, Any]) -> MutationPack:
    return MutationPack.model_validate({"mutation_pack_id": "p", "mutations": [
        {"id": "M", "intent": "x", "activation_probe": {"user_turns": ["hi"], "expect_violation": violation}}]})


def _holds(violation: dict[str, Any], calls: list[str], respond: str = '{"decision": "RENEWED"}') -> bool | None:
    got = result(spec_test("t", ["C"]), {}, calls=calls)
    got.turns[0].respond_json = [respond]
    return predicates_hold(_pack(violation).mutations[0].activation_probe.expect_violation, got)


def test_paper_json_keys_load_and_mean_what_adat_keys_mean() -> None:
    paper = _pack({"json": {"field_in": {"decision": ["RENEWED", "X"]}, "field_equals": {"decision": "RENEWED"}}})
    ours = _pack({"json": {"in": {"decision": ["RENEWED", "X"]}, "equals": {"decision": "RENEWED"}}})
    assert paper.mutations[0].activation_probe.expect_violation == ours.mutations[0].activation_probe.expect_violation
    assert _holds({"json": {"field_in": {"decision": ["RENEWED"]}}}, []) is True
    assert _holds({"json": {"field_equals": {"decision": "REFUSED"}}}, []) is False


def test_both_spellings_of_one_field_is_one_line_error() -> None:
    with pytest.raises(ValueError, match="keep one spelling"):
        _pack({"json": {"field_in": {"decision": ["A"]}, "in": {"decision": ["B"]}}})


def test_the_parceldesk_case_pack_in_paper_keys_loads_like_its_adat_copy() -> None:
    paper, ours = load_mutation_pack(CASES / "mutations.yaml"), load_mutation_pack(CASES / "mutations-adat-keys.yaml")
    assert [m.activation_probe.expect_violation for m in paper.mutations] == \
        [m.activation_probe.expect_violation for m in ours.mutations]
    assert any(m.activation_probe.expect_violation.json_ and m.activation_probe.expect_violation.json_.in_
               for m in paper.mutations)


def test_order_violation_in_the_papers_sense_and_in_adats() -> None:
    paper = {"trace": {"order_violation": {"must_not_happen": ["file_claim", "verify"]}}}
    assert _holds(paper, ["file_claim", "verify"]) is True      # claim first, check afterwards
    assert _holds(paper, ["verify", "file_claim"]) is False     # the right order
    assert _holds(paper, ["file_claim"]) is False               # a skipped tool is no order violation
    adat = {"trace": {"order_violation": {"missing_before": ["file_claim", "verify"]}}}
    assert _holds(adat, ["file_claim"]) is True                 # adat's reading: verify not before it
    assert _holds(adat, ["verify", "file_claim"]) is False


def test_a_misspelt_pack_key_names_the_accepted_spellings(tmp_path: Path) -> None:
    bad = tmp_path / "pack.yaml"
    bad.write_text((CASES / "mutations.yaml").read_text().replace("field_in:", "field_inn:"))
    with pytest.raises(UserError) as err:
        load_mutation_pack(bad)
    line = str(err.value)
    assert "\n" not in line and "json.field_inn" in line and str(bad) in line
    assert "field_in" in line and "equals" in line and "mutation-pack" in line and "TDAD spec shape" not in line
