"""Adaptive statement–instruction pair selection for test transformation (DESIGN §5).

Build a selector with :func:`make_selector` and drive it with ``next_pair`` / ``update`` until
``next_pair`` returns None; :class:`PairSelector` documents the loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from adat.config import SelectorConfig
from adat.errors import UserError
from adat.records import Instruction
from adat.selection.adat2 import AdaT2Selector
from adat.selection.bandits import EpsilonGreedySelector, Exp3Selector, UCB1Selector
from adat.selection.block_walk import BlockWalkSelector
from adat.selection.gp_bo import GPBOSelector
from adat.selection.joint import LLMChoose, LLMSelector, UniformSelector
from adat.selection.novelty import NoveltyTracker
from adat.selection.pair import (
    STOP_BUDGET,
    STOP_EMPTY,
    STOP_PASSES,
    STOP_TARGET,
    Candidate,
    Pair,
    PairSelector,
    StatementLike,
)
from adat.selection.pooled import PastAttempts, PooledSelector
from adat.selection.posteriors import (
    combined_prior_rate,
    instruction_history_priors,
    quantile_level,
    reward_of,
)

__all__ = [
    "STOP_BUDGET", "STOP_EMPTY", "STOP_PASSES", "STOP_TARGET",
    "AdaT2Selector", "BlockWalkSelector", "Candidate", "EpsilonGreedySelector", "Exp3Selector",
    "GPBOSelector", "LLMChoose", "LLMSelector", "NoveltyTracker", "Pair", "PairSelector",
    "StatementLike", "UCB1Selector", "UniformSelector", "combined_prior_rate", "instruction_history_priors", "make_selector",
    "quantile_level", "reward_of",
]

#: the class of each selector but ``llm`` (it needs ``llm_choose``); a variant reads its name from the config
SELECTORS: dict[str, type[BlockWalkSelector]] = {
    "adat2": AdaT2Selector, "cold-start": AdaT2Selector, "static": AdaT2Selector, "thompson": AdaT2Selector,
    "uniform": UniformSelector, "ucb1": UCB1Selector, "epsilon-greedy": EpsilonGreedySelector,
    "exp3": Exp3Selector, "gp-bo": GPBOSelector, "pooled": PooledSelector, "pooled-cold-start": PooledSelector,
}


def make_selector(cfg: SelectorConfig, statements: Sequence[StatementLike], instructions: Sequence[Instruction],
                  embeddings: np.ndarray, n_target: int, seed: int = 0, *,
                  priors: Mapping[str, tuple[float, float]] | None = None,
                  llm_choose: LLMChoose | None = None, past: PastAttempts | None = None) -> PairSelector:
    """The selector ``cfg.name`` over ``statements`` (in rank order) and ``instructions``.

    ``embeddings`` has one row per statement, aligned with ``statements``. ``priors`` maps an
    instruction id to its (applicable, not applicable) counts in earlier runs (see
    :func:`adat.selection.instruction_history_priors`); selectors with a prior use it instead of
    the catalog's ``prior_applicability`` where an instruction has history (the cold starts
    ignore it). ``llm_choose`` is required by the ``llm`` selector only. ``past`` (the same earlier
    attempts, one row each, with their statements' embeddings) is neighbour evidence for
    ``pooled``; other selectors ignore it.
    """
    args = (cfg, statements, instructions, embeddings, n_target, seed)
    if cfg.name == "llm":
        if llm_choose is None:
            raise UserError("the llm selector needs an LLM", field="selector.name",
                            fix="set models.selector to a provider/model, or choose another selector")
        return LLMSelector(*args, llm_choose=llm_choose, priors=priors)
    if SELECTORS[cfg.name] is PooledSelector:
        return PooledSelector(*args, priors=priors, past=past)
    return SELECTORS[cfg.name](*args, priors=priors)
