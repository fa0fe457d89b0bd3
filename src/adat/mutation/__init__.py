"""Mutation testing, one module for both pipelines (DESIGN §9): a *variant* of the agent (a TDAD
prompt mutant or a seeded retail fault), its *activation* (the probe's predicates hold on the
variant and not on the base, within a number of attempts: :func:`activate` for both; a seeded
fault's probe is the suite run on it, its predicate the side log's decision flip,
:mod:`adat.mutation.seeded_faults`), and its *kills*, scored in SQL by
``sql/intermediate/int_variant_kills.sql`` (a test fails on the variant and passed on the base
in every rerun); MS = killed / activated by ``sql/metrics/mutation_score.sql`` for both kinds,
non-activated variants listed apart.
"""

from adat.mutation.activation import ActivationResult, activate
from adat.mutation.probes import predicates_hold
from adat.mutation.seeded_faults import activate_fault, fault_mutant_row, took_effect

__all__ = ["ActivationResult", "activate", "activate_fault", "fault_mutant_row", "predicates_hold", "took_effect"]
