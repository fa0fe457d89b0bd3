"""Statement diffs: one-to-one matching by embedding cosine (no model: hand-made unit vectors)."""

from __future__ import annotations

import numpy as np

from adat.reporting.run_diff import match_statements


def unit(*rows: list[float]) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_same_text_is_unchanged_reworded_is_changed_the_rest_appear_or_vanish() -> None:
    a = [{"text": "cancel needs pending"}, {"text": "refund to original method"}, {"text": "exchange once"}]
    b = [{"text": "refund to the original payment method"}, {"text": "cancel needs pending"}, {"text": "new rule"}]
    va = unit([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0])
    vb = unit([0, 1, 0.2, 0], [1, 0, 0, 0], [0, 0, 0, 1])  # b0 ≈ a1 (cos 0.98), b2 unrelated
    diff = match_statements(a, b, va, vb, min_cosine=0.8)
    assert diff.unchanged == 1
    assert [(x["text"], y["text"]) for x, y, _ in diff.changed] == [("refund to original method",
                                                                    "refund to the original payment method")]
    assert diff.changed[0][2] > 0.95
    assert [s["text"] for s in diff.vanished] == ["exchange once"]
    assert [s["text"] for s in diff.appeared] == ["new rule"]


def test_a_pair_below_the_threshold_is_no_pair_and_matching_is_one_to_one() -> None:
    a = [{"text": "x"}, {"text": "y"}]
    b = [{"text": "z"}]
    va = unit([1, 0], [0.9, 0.1])
    vb = unit([0.95, 0.05])  # close to both; only one may take it
    diff = match_statements(a, b, va, vb, min_cosine=0.8)
    assert len(diff.changed) == 1 and len(diff.vanished) == 1 and not diff.appeared
    far = match_statements(a, b, va, unit([0, 1]), min_cosine=0.8)
    assert not far.changed and len(far.vanished) == 2 and [s["text"] for s in far.appeared] == ["z"]
