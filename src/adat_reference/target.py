"""adat's built-in agents under test as ``adat.targets`` plugins (registered in pyproject.toml).

``reference`` is the rule-based retail agent (:mod:`adat_reference.agent`); ``llm-agent`` is an LLM
with the retail policy and tools (:mod:`adat_reference.llm_agent`). Both share the retail seeded
faults; the rule-based one also gives the evaluation its ground truth (replays, side log, rule
passages, the initial database's facts), which the tester never sees.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from adat import config
from adat.targets.base import Target
from adat_reference.agent import ReferenceAgent, RuleBook
from adat_reference.agent.faults import Fault, fault_ids, load_fault, rewords_rule
from adat_reference.retail import WRITE_TOOLS, RetailDB, default_db_path, default_policy_path
from adat_reference.retail.fact_check import FactChecker

if TYPE_CHECKING:
    from adat.llm.client import LLMClient


class RetailFaults:
    """The retail seeded faults (``catalogs/faults/retail``), shared by both retail agents."""

    def fault_ids(self) -> list[str]:
        return fault_ids()

    def load_fault(self, fault_id: str) -> Fault:
        return load_fault(fault_id)

    def rewords_rule(self, fault_id: str) -> bool:
        return rewords_rule(load_fault(fault_id), RuleBook.load())

    def policy_path(self) -> Path:
        return default_policy_path()


class ReferencePlugin(RetailFaults):
    """``target.type: reference``: the rule-based agent, and its ground truth for the evaluation."""

    write_tools: frozenset[str] = WRITE_TOOLS

    def make_target(self, target_cfg: config.TargetConfig, cfg: config.RunConfig,
                    client: LLMClient | None = None) -> Target:
        database = getattr(target_cfg, "database", None)
        db = RetailDB.load(Path(database)) if database else None
        agent: Target = ReferenceAgent(db, fault=getattr(target_cfg, "fault", None))
        return agent

    def load_database(self, database: str | None) -> RetailDB:
        return RetailDB.load(Path(database) if database else default_db_path())

    def replay_agent(self, db: object, variant: str) -> ReferenceAgent:
        assert isinstance(db, RetailDB), "load_database made it"
        return ReferenceAgent(db, fault=None if variant == "original" else variant)

    def fact_checker(self, db: object) -> FactChecker:
        assert isinstance(db, RetailDB), "load_database made it"
        return FactChecker(db)

    def rule_passage(self, rule_id: str) -> str | None:
        rule = RuleBook.load().rules.get(rule_id)
        return rule.policy.strip() if rule is not None else None


class LLMAgentPlugin(RetailFaults):
    """``target.type: llm-agent``: an LLM with the retail policy (a fault edits it) and tools."""

    def make_target(self, target_cfg: config.TargetConfig, cfg: config.RunConfig,
                    client: LLMClient | None = None) -> Target:
        from adat_reference.llm_agent import LLMAgent

        if not isinstance(target_cfg, config.LLMAgentTarget):
            raise TypeError(f"an llm-agent needs an LLMAgentTarget, not {type(target_cfg).__name__}")
        if client is None:
            from adat.llm.client import LLMClient

            client = LLMClient(cfg, cfg.run_id or "adhoc")
        return LLMAgent(client, model=target_cfg.model, policy=target_cfg.policy, database=target_cfg.database,
                        fault=target_cfg.fault, max_steps=target_cfg.max_steps)


#: the entry points of pyproject.toml's ``adat.targets`` group
REFERENCE = ReferencePlugin()
LLM_AGENT = LLMAgentPlugin()

if TYPE_CHECKING:  # mypy holds the plugins to the protocols the tester loads them by
    from adat.targets.plugins import FaultCatalog, GroundTruth, TargetPlugin

    _reference: GroundTruth = REFERENCE
    _reference_target: TargetPlugin = REFERENCE
    _llm_agent: FaultCatalog = LLM_AGENT
    _llm_agent_target: TargetPlugin = LLM_AGENT
