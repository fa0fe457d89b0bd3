"""Build the selector a run config names (``selector.name``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from adat.config import AdaT2Selection, PooledSelection, SelectorConfig
from adat.errors import UserError
from adat.records import Instruction
from adat.selection.adat2 import AdaT2Selector
from adat.selection.bandits import EpsilonGreedySelector, Exp3Selector, UCB1Selector
from adat.selection.gp_bo import GPBOSelector
from adat.selection.joint import LLMChoose, LLMSelector, UniformSelector
from adat.selection.pair import PairSelector, StatementLike
from adat.selection.pooled import PastAttempts, PooledSelector


def make_selector(cfg: SelectorConfig, statements: Sequence[StatementLike], instructions: Sequence[Instruction],
                  embeddings: np.ndarray, n_target: int, seed: int = 0, *,
                  priors: Mapping[str, tuple[float, float]] | None = None,
                  llm_choose: LLMChoose | None = None, past: PastAttempts | None = None) -> PairSelector:
    """The selector ``cfg.name`` over ``statements`` (in rank order) and ``instructions``.

    ``embeddings`` has one row per statement, aligned with ``statements``. ``priors`` maps an
    instruction id to its (applicable, not applicable) counts in earlier runs (see
    :func:`adat.selection.instruction_history_priors`); selectors with a prior use it instead of
    the catalog's ``prior_applicability`` where an instruction has history. ``llm_choose`` is
    required by the ``llm`` selector only. ``past`` (the same earlier attempts, one row each, with
    their statements' embeddings) is neighbour evidence for ``pooled``; other selectors ignore it.
    """
    rest = (statements, instructions, embeddings, n_target, seed)
    args = (cfg, *rest)
    name = cfg.name
    if isinstance(cfg, AdaT2Selection):
        if name == "cold-start":
            return AdaT2Selector(cfg, *rest, cold_start=True, name="cold-start")
        if name in ("static", "thompson"):
            return AdaT2Selector(cfg, *rest, priors=priors, mode=name, name=name)
        return AdaT2Selector(cfg, *rest, priors=priors)
    if isinstance(cfg, PooledSelection):
        if name == "pooled-cold-start":
            return PooledSelector(cfg, *rest, cold_start=True, name="pooled-cold-start")
        return PooledSelector(cfg, *rest, priors=priors, past=past)
    if name == "uniform":
        return UniformSelector(*args)
    if name == "ucb1":
        return UCB1Selector(*args)
    if name == "epsilon-greedy":
        return EpsilonGreedySelector(*args)
    if name == "exp3":
        return Exp3Selector(*args)
    if name == "gp-bo":
        return GPBOSelector(cfg, *rest, priors=priors)
    if name == "llm":
        if llm_choose is None:
            raise UserError("the llm selector needs an LLM", field="selector.name",
                            fix="set models.selector to a provider/model, or choose another selector")
        return LLMSelector(cfg, *rest, llm_choose=llm_choose, priors=priors)
    raise UserError(f"unknown selector {name!r}", field="selector.name", fix="see `adat config show-defaults`")
