"""Build the target a run config names: ``reference``, ``http``, ``python`` or ``llm-agent``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adat import config
from adat.targets.base import Target

if TYPE_CHECKING:
    from adat.llm.client import LLMClient


def build_target(target_cfg: config.TargetConfig, cfg: config.RunConfig, *,
                 client: LLMClient | None = None) -> Target:
    """The target of ``target_cfg``; ``client`` is the LLM client an llm-agent uses (built if None).

    Imports are local: the agents import ``adat.targets.base`` themselves, and a run against
    an http endpoint need not load the retail domain.
    """
    if isinstance(target_cfg, config.HttpTarget):
        from adat.targets.http import HttpTarget

        return HttpTarget(target_cfg)
    if isinstance(target_cfg, config.PythonTarget):
        from adat.targets.python_target import PythonTarget

        return PythonTarget(target_cfg.factory, target_cfg.kwargs)
    if isinstance(target_cfg, config.ReferenceTarget):
        return build_reference_agent(target_cfg.database, target_cfg.fault)
    if isinstance(target_cfg, config.LLMAgentTarget):
        from adat.targets.llm_agent import LLMAgent

        if client is None:
            from adat.llm.client import LLMClient

            client = LLMClient(cfg, cfg.run_id or "adhoc")
        return LLMAgent(client, model=target_cfg.model, policy=target_cfg.policy, database=target_cfg.database,
                        fault=target_cfg.fault, max_steps=target_cfg.max_steps)
    raise TypeError(f"unknown target config {type(target_cfg).__name__}")


def build_reference_agent(database: str | None, fault: str | None) -> Target:
    """The rule-based reference agent on ``database`` (None = the shipped one), optionally faulty."""
    from pathlib import Path

    from adat.agents.reference import ReferenceAgent
    from adat.domains.retail import RetailDB

    db = RetailDB.load(Path(database)) if database else None
    agent: Target = ReferenceAgent(db, fault=fault)
    return agent
