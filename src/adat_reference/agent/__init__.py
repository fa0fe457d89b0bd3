"""The deterministic rule-based reference agent of the retail domain, its rules and seeded faults."""

from adat_reference.agent.agent import RULE_IDS, ReferenceAgent
from adat_reference.agent.faults import (
    Fault,
    FaultProbe,
    default_fault_dir,
    fault_ids,
    list_faults,
    load_fault,
)
from adat_reference.agent.rules import Rule, RuleBook, RuleOverride, default_rules_path
from adat_reference.agent.session import ToolCall

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
