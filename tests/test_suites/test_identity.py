"""Test identity: pairing two suites' tests by kind, instruction, side and statement (no model:
hand-made unit vectors per text)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adat.suites.identity import pair_tests

VECTORS = {"cancel needs pending": [1, 0, 0, 0], "cancel only when pending": [0.97, 0.1, 0, 0],
           "refund to original method": [0, 1, 0, 0], "exchange once": [0, 0, 1, 0], "new rule": [0, 0, 0, 1]}


def embed(texts: Sequence[str]) -> np.ndarray:
    m = np.array([VECTORS[t] for t in texts], dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test(test_id: str, text: str, kind: str = "plain", instruction: str = "", side: str = "denied") -> dict[str, Any]:
    return {"test_id": test_id, "text": text, "kind": kind, "instruction_id": instruction, "expected_side": side,
            "goal": f"goal of {test_id}"}


test.__test__ = False  # type: ignore[attr-defined]


def test_reworded_statement_pairs_and_the_rest_are_new_or_retired() -> None:
    a = [test("a1", "cancel needs pending"), test("a2", "refund to original method"), test("a3", "exchange once")]
    b = [test("b1", "cancel only when pending"), test("b2", "refund to original method"), test("b3", "new rule")]
    p = pair_tests("A", "B", a, b, embed)
    assert sorted((x["test_id"], y["test_id"]) for x, y, _ in p.paired) == [("a1", "b1"), ("a2", "b2")]
    assert [t["test_id"] for t in p.new] == ["b3"] and [t["test_id"] for t in p.retired] == ["a3"]
    assert p.paired_share == 2 / 3 and not p.same_ids
    assert p.columns() == ([x["test_id"] for x, _, _ in p.paired], [y["test_id"] for _, y, _ in p.paired])


def test_kind_instruction_and_side_must_match_exactly() -> None:
    a = [test("a1", "cancel needs pending", side="denied"),
         test("a2", "cancel needs pending", kind="transformed", instruction="wording-paraphrase")]
    b = [test("b1", "cancel needs pending", side="allowed"),
         test("b2", "cancel needs pending", kind="transformed", instruction="value-change-one")]
    p = pair_tests("A", "B", a, b, embed)
    assert not p.paired and len(p.new) == 2 and len(p.retired) == 2


def test_pairing_is_one_to_one_and_a_frozen_suite_pairs_by_id() -> None:
    a = [test("a1", "cancel needs pending")]
    b = [test("b1", "cancel needs pending"), test("b2", "cancel only when pending")]
    p = pair_tests("A", "B", a, b, embed)
    assert [(x["test_id"], y["test_id"]) for x, y, _ in p.paired] == [("a1", "b1")] and len(p.new) == 1
    same = pair_tests("A", "B", a, [test("a1", "cancel needs pending")], embed)
    assert same.same_ids and same.paired_share == 1.0 and not same.new


def test_a_pair_below_the_threshold_is_no_pair() -> None:
    p = pair_tests("A", "B", [test("a1", "exchange once")], [test("b1", "new rule")], embed)
    assert not p.paired and p.paired_share == 0.0
