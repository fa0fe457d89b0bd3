"""Every selector runs to a stop without repeating a pair; specifics of UCB1, LLM and GP-BO."""

from __future__ import annotations

import numpy as np
import pytest

from adat.config import parse_selector
from adat.errors import UserError
from adat.llm.types import LLMError
from adat.selection import GPBOSelector, LLMSelector, make_selector
from adat.selection.pair import Candidate
from tests.test_selection.synthetic import (
    build,
    drive,
    embeddings,
    hashed_outcome,
    instructions,
    never_applicable,
    statements,
)

ALL = ["adat2", "cold-start", "uniform", "static", "thompson", "ucb1", "epsilon-greedy", "exp3", "gp-bo", "llm"]


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("outcome", [hashed_outcome, never_applicable])
def test_selector_runs_to_a_stop_and_never_repeats_a_pair(name: str, outcome: object) -> None:
    sel = build(name, n_statements=9, block_size=3, priors=[0.9, 0.6, 0.3, 0.1, 0.5], n_target=6)
    pairs = drive(sel, outcome)  # type: ignore[arg-type]
    keys = [(p.statement_id, p.instruction_id) for p in pairs]
    assert len(keys) == len(set(keys)) and pairs
    assert sel.stop_reason() in {"target", "budget", "passes"}
    assert sel.name == name


def test_ucb1_tries_every_instruction_before_repeating_one() -> None:
    sel = build("ucb1", n_statements=10, priors=[0.5] * 4, n_target=10, block_size=10)
    pairs = drive(sel, never_applicable)
    assert len({p.instruction_id for p in pairs[:4]}) == 4


def test_llm_selector_uses_a_valid_answer() -> None:
    seen: list[list[Candidate]] = []

    def choose(cands: list[Candidate]) -> tuple[str, str]:
        seen.append(cands)
        return cands[-1].statement_id, cands[-1].instruction_id

    sel = make_selector(parse_selector({"name": "llm"}), statements(4), instructions([0.9, 0.1]), embeddings(4), 2,
                        llm_choose=choose)
    pair = sel.next_pair()
    assert pair is not None and (pair.statement_id, pair.instruction_id) == (seen[0][-1].statement_id,
                                                                             seen[0][-1].instruction_id)
    assert seen[0][0].instruction_id == "k0"  # default order: prior applicability first
    assert isinstance(sel, LLMSelector) and sel.fallbacks == 0


@pytest.mark.parametrize("answer", [("nope", "k0"), None, LLMError("down")])
def test_llm_selector_falls_back_to_the_first_candidate_and_counts(answer: object) -> None:
    def choose(cands: list[Candidate]) -> tuple[str, str] | None:
        if isinstance(answer, Exception):
            raise answer
        return answer  # type: ignore[return-value]

    sel = make_selector(parse_selector({"name": "llm"}), statements(4), instructions([0.9, 0.1]), embeddings(4), 2,
                        llm_choose=choose)
    assert isinstance(sel, LLMSelector)
    pairs = drive(sel, hashed_outcome)
    assert sel.fallbacks == len(pairs) > 0
    assert pairs[0].instruction_id == "k0" and pairs[0].scores["fallback"] is True


def test_llm_selector_needs_an_llm() -> None:
    with pytest.raises(UserError, match="selector.name"):
        make_selector(parse_selector({"name": "llm"}), statements(2), instructions([0.5]), embeddings(2), 1)


def test_gp_posterior_moves_towards_observations_and_generalises_over_similar_statements() -> None:
    emb = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]])
    sel = make_selector(parse_selector({"name": "gp-bo", "block_size": 3}), statements(3), instructions([0.5, 0.5]), emb, 3)
    assert isinstance(sel, GPBOSelector)
    hs, ks = np.array([1, 2, 1]), np.array([0, 0, 1])
    mean0, sd0 = sel.posterior(hs, ks)
    sel.obs_h, sel.obs_k, sel.obs_y = [0], [0], [1.0]
    mean1, sd1 = sel.posterior(hs, ks)
    assert mean1[0] > mean1[1] > mean0[1] - 1e-9  # similar statement, same instruction gains most
    assert sd1[0] < sd0[0] and mean1[0] > mean1[2]


def test_llm_selector_offers_at_most_max_offered_candidates_in_its_default_order() -> None:
    from adat.selection.joint import MAX_OFFERED

    seen: list[list[Candidate]] = []

    def choose(cands: list[Candidate]) -> tuple[str, str]:
        seen.append(cands)
        return cands[0].statement_id, cands[0].instruction_id

    many = instructions([0.9 - i * 0.005 for i in range(40)])  # 4 statements x 40 instructions = 160 pairs
    sel = make_selector(parse_selector({"name": "llm", "block_size": 4}), statements(4), many, embeddings(4), 2,
                        llm_choose=choose)
    assert sel.next_pair() is not None
    assert len(seen[0]) == MAX_OFFERED and seen[0][0].instruction_id == "k0"  # the best of the order kept
