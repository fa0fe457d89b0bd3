"""Adaptive statement–instruction pair selection for test transformation (DESIGN §5).

Build a selector with :func:`make_selector` and drive it with ``next_pair`` / ``update`` until
``next_pair`` returns None; :class:`PairSelector` documents the loop.
"""

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
from adat.selection.posteriors import (
    combined_prior_rate,
    instruction_history_priors,
    quantile_level,
    reward_of,
)
from adat.selection.selector_factory import make_selector

__all__ = [
    "STOP_BUDGET", "STOP_EMPTY", "STOP_PASSES", "STOP_TARGET",
    "AdaT2Selector", "BlockWalkSelector", "Candidate", "EpsilonGreedySelector", "Exp3Selector",
    "GPBOSelector", "LLMChoose", "LLMSelector", "NoveltyTracker", "Pair", "PairSelector",
    "StatementLike", "UCB1Selector", "UniformSelector", "combined_prior_rate", "instruction_history_priors", "make_selector",
    "quantile_level", "reward_of",
]
