"""Seeded faults for the llm-agent: the fault's policy passage replaced in the policy document.

A fault file (``catalogs/faults/retail/<id>.yaml``, format in docs/faults.md, loaded by
:func:`adat_reference.agent.faults.load_fault`) flips one rule. For the rule-based agent it
overrides the rule's parameters; for an LLM agent the same flip is a text edit:
``passage_before`` (verbatim in the policy) becomes ``passage_after``.
"""

from __future__ import annotations

from adat.errors import UserError


def apply_fault(policy_text: str, fault_id: str) -> str:
    """The policy with the fault's ``passage_before`` replaced by its ``passage_after``."""
    # Imported here: the reference agent package imports adat.targets, which imports this module.
    from adat_reference.agent.faults import load_fault

    fault = load_fault(fault_id)
    if fault.passage_before not in policy_text:
        raise UserError("passage_before does not occur verbatim in the policy", file=fault.source or None,
                        field="passage_before",
                        fix="copy the passage exactly from the policy document the llm-agent uses")
    return policy_text.replace(fault.passage_before, fault.passage_after)
