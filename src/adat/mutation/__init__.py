"""Mutation testing, one module for both pipelines (DESIGN §9): a *variant* of the agent (a TDAD
prompt mutant or a seeded retail fault), its *activation* (the probe's predicates hold on the
variant and not on the base, within a number of attempts), and its *kills*, scored in SQL by
``sql/intermediate/int_variant_kills.sql`` (a test fails on the variant and passed on the base
in every rerun); MS = killed / activated, non-activated variants reported apart.
"""

from adat.mutation.activation import ActivationResult, activate
from adat.mutation.probes import predicates_hold

__all__ = ["ActivationResult", "activate", "predicates_hold"]
