"""Coverage-aware transformation (issue 28 item 4): ``pooled`` penalises a rewording's
near-duplicates run-wide, so a rewording instruction that always applies no longer writes most of the
transformed tests; the other factors, applicable half the time, write the rest."""

from __future__ import annotations

import numpy as np

from adat.config import parse_selector
from adat.selection import make_selector
from adat.selection import pooled as pooled_mod
from adat.selection.pair import Pair
from tests.test_selection.synthetic import drive, embeddings, instructions, statements

FACTORS = ["wording", "identity", "value", "value", "state", "identity", "sequence", "confirmation"]
PRIORS = [0.93, 0.8, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]


def _outcome(pair: Pair) -> tuple[bool, str | None]:
    """A rewording (k0) and an identity change (k1) always apply; every other instruction on every other statement."""
    k, h = int(pair.instruction_id[1:]), int(pair.statement_id[1:])
    applies = k < 2 or (h + k) % 2 == 0
    return applies, "pass" if applies else None


def _share() -> float:
    sel = make_selector(parse_selector({"name": "pooled"}), statements(30), instructions(PRIORS, FACTORS),
                        embeddings(30), 30, seed=1)
    pairs = drive(sel, _outcome)
    written = [p for p in pairs if _outcome(p)[0]][:30]
    return sum(p.instruction_id == "k0" for p in written) / max(len(written), 1)  # the rewording that always applies


def test_rewordings_write_at_most_a_quarter_of_the_tests() -> None:
    assert _share() <= 0.25


def test_without_the_penalty_rewordings_dominate(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(pooled_mod, "REWORDING_GAMMA", 1.0)
    assert _share() > 0.25


def test_the_penalty_counts_the_rewordings_own_tests_and_spares_other_factors() -> None:
    sel = make_selector(parse_selector({"name": "pooled"}), statements(4), instructions(PRIORS, FACTORS),
                        embeddings(4), 4, seed=1)
    assert isinstance(sel, pooled_mod.PooledSelector)
    assert list(np.flatnonzero(sel.rewording)) == [0]
    pair = sel.next_pair()
    assert pair is not None
    sel.update(pair, applicable=True, verdict="pass")
    assert sel.instruction_tests.sum() == 1
    k = int(pair.instruction_id[1:])
    assert sel.rewording_penalty(np.array([k]))[0] == (pooled_mod.REWORDING_GAMMA if k == 0 else 1.0)

