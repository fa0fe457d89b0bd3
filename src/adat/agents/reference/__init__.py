"""The deterministic rule-based reference agent of the retail domain, its rules and seeded faults."""

from adat.agents.reference.agent import RULE_IDS, ReferenceAgent
from adat.agents.reference.faults import (
    Fault,
    FaultProbe,
    default_fault_dir,
    fault_ids,
    list_faults,
    load_fault,
)
from adat.agents.reference.rules import Rule, RuleBook, RuleOverride, default_rules_path
from adat.agents.reference.session import ToolCall

__all__ = [
    "RULE_IDS",
    "Fault",
    "FaultProbe",
    "ReferenceAgent",
    "Rule",
    "RuleBook",
    "RuleOverride",
    "ToolCall",
    "default_fault_dir",
    "default_rules_path",
    "fault_ids",
    "list_faults",
    "load_fault",
]
