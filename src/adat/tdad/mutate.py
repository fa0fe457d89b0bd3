"""Semantic mutation testing of a compiled spec agent (TDAD, DESIGN §9), on :mod:`adat.mutation`.

Per intent of the mutation pack: run the activation probe on the compiled prompt (the base);
ask MutationSmith for a mutant, run the probe on it, and repeat up to the pack's
``max_attempts`` until the probe's predicates hold on the mutant (and did not on the base). An
activated mutant runs every visible test once; whether a test kills it (fails on it and passed
on the compiled prompt in all reruns) is decided in SQL (``int_variant_kills``), over these rows
and the reliability stage's reruns. Non-activated mutants are recorded, never scored.

A probe is user turns and predicates; the tools need fixtures. They are those of the visible
test that shares the most words with the probe (its case name and turns against the test's
title, leaf and turns), so a probe for "cancel an ineligible order" gets that situation's tool
outputs -- chosen from the suite, never written for one spec.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from adat.mutation import activate, predicates_hold
from adat.records import MutantRow, SpecResult
from adat.tdad.clauses import overlap
from adat.tdad.compiler import artifact_diff
from adat.tdad.suite_runs import RunTest, run_tests, stage_row

#: make(compiled artifact, mutation, attempt) -> mutant artifact
MakeMutant = Callable[[Any, Any, int], Any]


@dataclass
class MutationOutcome:
    mutants: list[MutantRow] = field(default_factory=list)
    results: list[SpecResult] = field(default_factory=list)


def probe_test(mutation: Any, visible: Sequence[Any]) -> Any:
    """The probe as a spec test: its turns, with the fixtures of the closest visible test."""
    probe = mutation.activation_probe
    words = " ".join([probe.case.replace("_", " "), *probe.user_turns])

    def score(test: Any) -> float:
        return overlap(words, " ".join([test.title, test.leaf_id.replace("_", " "), *test.user_turns]))

    closest = max(visible, key=lambda t: (score(t), -visible.index(t)))
    return closest.model_copy(update={
        "test_id": f"probe-{mutation.id}", "title": f"activation probe {probe.case or mutation.id}",
        "user_turns": list(probe.user_turns), "derived_from": closest.test_id,
        # the probe is judged by its predicates; the test's own assertions are about other turns
        "assertions": [a for a in closest.assertions if a.kind in ("response_fields", "no_pii")]
        or closest.assertions[:1]})


def mutate_compiled(compiled: Any, pack: Any, visible: Sequence[Any], run_test: RunTest, make: MakeMutant, *,
                    run_id: str, produced_by: str = "", prompt_id: str = "", prompt_version: str = "",
                    workers: int = 1) -> MutationOutcome:
    """Every intent of ``pack`` against ``compiled``; see the module docstring."""
    out = MutationOutcome()
    spec_id, spec_version = (visible[0].spec_id, visible[0].spec_version) if visible else ("", "")
    for mutation in pack.mutations:
        probe = probe_test(mutation, visible)
        predicates = mutation.activation_probe.expect_violation
        base_run = run_test(compiled, probe, 0)
        out.results.append(stage_row(base_run, run_id=run_id, variant=f"{mutation.id}@base",
                                     digest=compiled.digest(), scope="probe"))

        def holds(mutant: Any, mutation: Any = mutation, probe: Any = probe) -> bool | None:
            result = run_test(mutant, probe, 0)
            out.results.append(stage_row(result, run_id=run_id, variant=mutation.id, digest=mutant.digest(),
                                         scope="probe"))
            return predicates_hold(mutation.activation_probe.expect_violation, result)

        def make_one(attempt: int, mutation: Any = mutation) -> Any:
            return make(compiled, mutation, attempt)

        activation = activate(make_one, holds, base_holds=predicates_hold(predicates, base_run),
                              max_attempts=pack.max_attempts)
        mutant = activation.variant
        if activation.activated and mutant is not None:
            out.results += [stage_row(r, run_id=run_id, variant=mutation.id, digest=mutant.digest(), scope="suite")
                            for r in run_tests(run_test, mutant, visible, workers=workers)]
        out.mutants.append(MutantRow(
            run_id=run_id, mutant_id=mutation.id, kind="prompt", spec_id=spec_id, spec_version=spec_version,
            intent=mutation.intent, base_digest=compiled.digest(),
            prompt_digest=mutant.digest() if mutant is not None else "", activated=activation.activated,
            activation_attempts=activation.attempts, probe_holds_on_base=bool(activation.holds_on_base),
            diff=artifact_diff(compiled, mutant) if mutant is not None else "",
            produced_by=produced_by, prompt_id=prompt_id, prompt_version=prompt_version))
    return out
