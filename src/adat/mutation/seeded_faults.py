"""Activation of a seeded fault, from the side log the evaluator keeps for its own faults.

A seeded fault (a rule flip of the reference agent, catalogs/faults/retail) is a variant like a
TDAD prompt mutant, and it is activated by the same rule (:func:`adat.mutation.activate`): its
probe's predicate holds on the variant and does not on the base. Its probe is the suite itself,
run on the fault (the regression stage's executions); its predicate, read from the side log
(``rule_events``), is **the fault took effect at its rule**: some evaluation of the fault's rule
decided unlike the shipped rule (``decision`` differs from ``side``), or — for a fault that
rewords the rule (overrides a sentence of it, or a parameter one quotes) — the rule was
evaluated, since what the agent says there is the fault's.

Why not the plain "the fault's rule was evaluated": it also counts a fault whose rule the suite
reaches only where the flip changes nothing (an unavailable-item check on requests for items in
stock), which no test can kill. Why not the decision flip alone: a rewording takes effect without
one — ``items_modifiable_twice`` tells the customer items can be changed twice while the first
change is allowed either way, and the demo's suite kills it exactly there; a kill proves an
activation, so the predicate must not miss it.

On the base (the original agent's executions of the same tests) the predicate cannot hold: the
original decides as the shipped rule and says its sentences. It is None — not observable — when
those executions logged no decision at all (a target without a side log, e.g. the llm-agent, or
rows written before decisions were logged); then, as for a TDAD probe that cannot be observed,
the fault is not activated and is listed apart, never scored.

This is the evaluator's bookkeeping of the faults it seeded; the tester never reads it.
"""

from __future__ import annotations

from collections.abc import Iterable

from adat.mutation.activation import ActivationResult, activate
from adat.records import MutantRow, RuleEvent


def took_effect(events: Iterable[RuleEvent], rule_id: str, *, rewords: bool = False) -> bool | None:
    """Whether the logged evaluations show a fault on ``rule_id`` taking effect: one decided unlike
    the shipped rule, or (``rewords``: the fault changes what the rule says) one happened at all.

    None when no event carries a decision (nothing observable); False when decisions were logged
    and none shows it (including: the rule was never evaluated).
    """
    observed = [e for e in events if e.decision is not None]
    if not observed:
        return None
    return any(e.rule_id == rule_id and (rewords or e.decision != e.side) for e in observed)


def activate_fault(fault_id: str, rule_id: str, variant_events: Iterable[RuleEvent],
                   base_events: Iterable[RuleEvent], *, rewords: bool = False) -> ActivationResult[str]:
    """The fault's activation by :func:`adat.mutation.activate` (one attempt: the fault is fixed).

    The base (the original agent) says the shipped sentences, so only a decision flip could show
    there."""
    variant = list(variant_events)
    return activate(lambda _attempt: fault_id, lambda _fault: took_effect(variant, rule_id, rewords=rewords),
                    base_holds=took_effect(base_events, rule_id), max_attempts=1)


def fault_mutant_row(run_id: str, fault_id: str, rule_id: str, activation: ActivationResult[str]) -> MutantRow:
    """The fault as a ``mutants`` row (kind 'fault', intent = its rule), scored by
    sql/metrics/mutation_score.sql like a prompt mutant; no LLM produced it."""
    return MutantRow(run_id=run_id, mutant_id=fault_id, kind="fault", intent=rule_id,
                     activated=activation.activated, activation_attempts=activation.attempts,
                     probe_holds_on_base=activation.holds_on_base is not False)
