"""Agents that ship with adat: the rule-based retail reference agent (``adat.agents.reference``)."""

from adat.agents.reference import ReferenceAgent, list_faults, load_fault

__all__ = ["ReferenceAgent", "list_faults", "load_fault"]
