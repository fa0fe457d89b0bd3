"""Activation of a seeded fault, from the side log the evaluator keeps for its own faults.

A seeded fault (a rule flip of the reference agent, catalogs/faults/retail) is a variant like a
TDAD prompt mutant, and it is activated by the same rule (:func:`adat.mutation.activate`): its
probe's predicate holds on the variant and does not on the base. Its probe is the suite itself,
run on the fault (the regression stage's executions), and the predicate is read from the side
log (``rule_events``): **some evaluation of the fault's rule decided unlike the shipped rule**
(``decision`` differs from ``side``). This is the stricter of the two readings: "the fault's
rule was evaluated" would also count a fault whose rule was reached only on requests where the
flip changes nothing (an order already pending for a fault that lets processed orders through),
which no test can kill; the decision flip is where the fault takes effect. Every shipped fault
changes a decision (a forced outcome or a parameter a decision reads); sentence changes only
come with one.

On the base (the original agent's executions of the same tests) the predicate cannot hold: the
original decides as the shipped rule. It is None — not observable — when those executions
logged no decision at all (a target without a side log, e.g. the llm-agent, or rows written
before decisions were logged); then, as for a TDAD probe that cannot be observed, the fault is
not activated and is listed apart, never scored.

This is the evaluator's bookkeeping of the faults it seeded; the tester never reads it.
"""

from __future__ import annotations

from collections.abc import Iterable

from adat.mutation.activation import ActivationResult, activate
from adat.records import MutantRow, RuleEvent


def flip_logged(events: Iterable[RuleEvent], rule_id: str) -> bool | None:
    """Whether some logged evaluation of ``rule_id`` decided unlike the shipped rule.

    None when no event carries a decision (nothing observable); False when decisions were logged
    and none of ``rule_id``'s differs from its side (including: the rule was never evaluated).
    """
    observed = [e for e in events if e.decision is not None]
    if not observed:
        return None
    return any(e.rule_id == rule_id and e.decision != e.side for e in observed)


def activate_fault(fault_id: str, rule_id: str, variant_events: Iterable[RuleEvent],
                   base_events: Iterable[RuleEvent]) -> ActivationResult[str]:
    """The fault's activation by :func:`adat.mutation.activate` (one attempt: the fault is fixed)."""
    variant = list(variant_events)
    return activate(lambda _attempt: fault_id, lambda _fault: flip_logged(variant, rule_id),
                    base_holds=flip_logged(base_events, rule_id), max_attempts=1)


def fault_mutant_row(run_id: str, fault_id: str, rule_id: str, activation: ActivationResult[str]) -> MutantRow:
    """The fault as a ``mutants`` row (kind 'fault', intent = its rule), scored by
    sql/metrics/mutation_score.sql like a prompt mutant; no LLM produced it."""
    return MutantRow(run_id=run_id, mutant_id=fault_id, kind="fault", intent=rule_id,
                     activated=activation.activated, activation_attempts=activation.attempts,
                     probe_holds_on_base=activation.holds_on_base is not False)
