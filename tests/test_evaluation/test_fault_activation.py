"""Seeded faults are activated and scored by mutation testing's one module (adat.mutation) and
one metric file (sql/metrics/mutation_score.sql), like TDAD's prompt mutants.

A fault is activated when the side log of the suite run on it shows it taking effect at its rule
(a decision unlike the shipped rule's, or, for a fault that rewords its rule, any evaluation of
it); a fault whose rule the suite never reaches is not activated: listed, not scored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import adat.tdad.mutate as tdad_mutate
from adat.config import EvaluationConfig, RunConfig
from adat.evaluation import steps
from adat.mutation import activate_fault, activation, seeded_faults, took_effect
from adat.pipeline.context import RunContext
from adat.pipeline.steps import execution_step
from adat.records import RuleEvent
from adat.warehouse import read_records
from adat.warehouse.queries import ReportQueries
from tests.test_evaluation.conftest import ACTS, ASKS_CONFIRMATION, BAD_REASON, CHLOE, REFUSES, RUN, make_test

#: cancel_any_reason's rule (cancel_reason_accepted) is reached and flips on BAD_REASON;
#: transfer_in_scope's rule (transfer_scope) is never evaluated by a cancellation
REACHED, NEVER_REACHED = "cancel_any_reason", "transfer_in_scope"


def _event(rule: str, side: str, decision: str | None, variant: str = "F") -> RuleEvent:
    return RuleEvent(run_id=RUN, session_id="s", agent_variant=variant, rule_id=rule, side=side,  # type: ignore[arg-type]
                     turn=0, decision=decision)  # type: ignore[arg-type]


def test_both_kinds_of_variant_are_activated_by_the_same_function() -> None:
    assert seeded_faults.activate is activation.activate is tdad_mutate.activate


def test_a_fault_is_activated_only_where_it_took_effect_at_its_rule() -> None:
    base = [_event("R", "denied", "denied", "original"), _event("Q", "allowed", "allowed", "original")]
    flipped = [_event("R", "denied", "allowed")]
    assert took_effect(flipped, "R") is True
    assert activate_fault("F", "R", flipped, base).activated
    # the rule was evaluated, but the fault changed nothing there: not activated ...
    same = [_event("R", "denied", "denied")]
    assert took_effect(same, "R") is False and not activate_fault("F", "R", same, base).activated
    # ... unless the fault rewords the rule: then the agent said the fault's sentence there
    assert activate_fault("F", "R", same, base, rewords=True).activated
    # the rule was never reached (another rule flipped): not activated, rewording or not
    assert not activate_fault("F", "R", [_event("Q", "allowed", "denied")], base, rewords=True).activated
    # a target that logs no decisions (no side log): not observable, never activated
    unobserved = activate_fault("F", "R", [], [], rewords=True)
    assert unobserved.holds_on_base is None and not unobserved.activated
    assert took_effect([_event("R", "denied", None)], "R") is None


def test_which_shipped_faults_reword_their_rule() -> None:
    from adat_reference.agent import RuleBook, load_fault
    from adat_reference.agent.faults import rewords_rule

    book = RuleBook.load()
    assert rewords_rule(load_fault("items_modifiable_twice"), book)  # overrides the 'remind' sentence
    assert rewords_rule(load_fault("cancel_processed_orders"), book)  # its statuses are quoted
    assert not rewords_rule(load_fault("exchange_unavailable_item"), book)  # a forced outcome only
    assert not rewords_rule(load_fault("transfer_in_scope"), book)


@pytest.fixture(scope="module")
def regressed(tmp_path_factory) -> tuple[RunConfig, Path]:
    root = tmp_path_factory.mktemp("activation") / "data"
    cfg = RunConfig(data_dir=str(root), run_id=RUN, evaluation=EvaluationConfig(faults=[REACHED, NEVER_REACHED]))
    RunContext(cfg, RUN).write("tests", [
        make_test("t-reason", [CHLOE, BAD_REASON], success=[REFUSES], failure=[ACTS, ASKS_CONFIRMATION])])
    execution_step(cfg, RUN, kind="all")
    steps.audit_step(cfg, RUN)
    steps.labelling_step(cfg, RUN)
    for fault in steps.evaluation_faults(cfg):
        steps.regression_step(cfg, RUN, fault)
    return cfg, Path(steps.catalog_step(cfg, RUN).data["catalog"])


def _metric(cfg: RunConfig, name: str) -> list[dict]:  # type: ignore[type-arg]
    return ReportQueries(cfg.data_path()).rows(name, run_id=RUN)


def test_a_fault_whose_rule_is_never_reached_is_listed_and_not_scored(regressed) -> None:
    cfg, _ = regressed
    mutants = {m.mutant_id: m for m in read_records(cfg.data_path(), "mutants", run_id=RUN)}
    assert {m.kind for m in mutants.values()} == {"fault"}
    assert mutants[REACHED].activated and not mutants[NEVER_REACHED].activated
    assert mutants[NEVER_REACHED].intent == "transfer_scope" and not mutants[NEVER_REACHED].probe_holds_on_base
    # the same metric file that scores TDAD's prompt mutants (tests/test_tdad/test_mutation.py)
    (score,) = _metric(cfg, "mutation_score")
    assert (score["kind"], score["variants"], score["activated"], score["killed"]) == ("fault", 2, 1, 1)
    assert score["mutation_score"] == 1.0  # the paper's detected / faults would be 1 / 2
    assert score["not_activated"] == [NEVER_REACHED] and score["survivors"] == []
    detection = {r["fault"]: (r["activated"], r["detected"]) for r in _metric(cfg, "fault_detection")}
    assert detection == {REACHED: (True, True), NEVER_REACHED: (False, False)}
    # the evidence is the side log the regression wrote: decisions on the fault's executions
    events = read_records(cfg.data_path(), "rule_events", run_id=RUN)
    assert any(e.agent_variant == REACHED and e.rule_id == "cancel_reason_accepted" and e.decision != e.side
               for e in events)
    assert all(e.decision == e.side for e in events if e.agent_variant == "original")
