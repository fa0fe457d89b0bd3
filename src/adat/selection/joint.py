"""Selectors that choose statement and instruction together: uniform and the LLM selector.

Both draw from the untried pairs of the current block's eligible statements (the block walk of
:mod:`adat.selection.block_walk` applies to them unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from adat.config import BaselineSelection
from adat.selection.block_walk import BlockWalkSelector
from adat.selection.pair import Candidate
from adat.selection.posteriors import theta_prior

#: The LLM selector's chooser: gets the candidates, answers (statement_id, instruction_id) or None.
LLMChoose = Callable[[list[Candidate]], tuple[str, str] | None]


def untried_pairs(selector: BlockWalkSelector, eligible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(statement indices, instruction indices) of every untried pair of the eligible statements."""
    rows, cols = np.nonzero(~selector.tried[eligible])
    return eligible[rows], cols


class UniformSelector(BlockWalkSelector):
    """A random untried pair for the current block's statements that are not set aside."""

    name = "uniform"

    def _choose(self, eligible: np.ndarray, t: int) -> tuple[int, int, dict[str, Any]]:
        hs, ks = untried_pairs(self, eligible)
        i = int(self.rng.integers(len(hs)))
        return int(hs[i]), int(ks[i]), {"candidates": len(hs)}


#: candidates the LLM selector shows the selector role, the first in its default order: a block of
#: 10 statements × ~90 instructions would overflow a context window, and no model chooses well among
#: hundreds of near-identical pairs
MAX_OFFERED = 60


class LLMSelector(BlockWalkSelector):
    """Asks an injected ``llm_choose`` for an untried pair.

    Candidates come in a sensible default order — statements by novelty, then instructions by
    prior applicability — each with the run's outcomes for its instruction so far, so the LLM
    can learn across attempts. An answer that is not one of the candidates (or no answer, or an
    :class:`adat.llm.types.LLMError`) falls back to the first candidate; :attr:`fallbacks`
    counts those.
    """

    name = "llm"
    cfg: BaselineSelection

    def __init__(self, *args: Any, llm_choose: LLMChoose, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.llm_choose = llm_choose
        self.fallbacks = 0
        self.prior_mean = theta_prior(self.instructions, weight=self.cfg.prior_weight, history=self.priors).mean()

    def candidates(self, eligible: np.ndarray) -> list[tuple[int, int, Candidate]]:
        """Every untried pair of the eligible statements, in the default order."""
        nu = self.novelty.novelty(eligible)
        out: list[tuple[int, int, Candidate]] = []
        for j in np.argsort(-nu, kind="stable"):
            h = int(eligible[j])
            arms = np.flatnonzero(~self.tried[h])
            for k in arms[np.argsort(-self.prior_mean[arms], kind="stable")]:
                judged = int(self.instruction_judged[k])
                ins = self.instructions[k]
                out.append((h, int(k), Candidate(
                    statement_id=self.statement_ids[h], statement_text=self.statement_texts[h],
                    novelty=round(float(nu[j]), 6), instruction_id=ins.instruction_id,
                    instruction_title=ins.title, instruction_text=ins.text,
                    attempts_with_instruction=int(self.instruction_attempts[k]),
                    tests_with_instruction=int(self.instruction_tests[k]),
                    mean_reward_with_instruction=(float(self.instruction_reward[k]) / judged) if judged else None,
                )))
        return out

    def _choose(self, eligible: np.ndarray, t: int) -> tuple[int, int, dict[str, Any]]:
        from adat.llm.types import LLMError

        offered = self.candidates(eligible)[:MAX_OFFERED]
        index = {(c.statement_id, c.instruction_id): (h, k) for h, k, c in offered}
        try:
            answer = self.llm_choose([c for _, _, c in offered])
        except LLMError:
            answer = None
        pair = tuple(answer) if isinstance(answer, tuple | list) and len(answer) == 2 else None
        chosen = index.get(pair) if pair is not None else None  # type: ignore[arg-type]
        self.fallbacks += chosen is None
        h, k = chosen or offered[0][:2]
        return h, k, {"candidates": len(offered), "fallback": chosen is None, "fallbacks": self.fallbacks}
