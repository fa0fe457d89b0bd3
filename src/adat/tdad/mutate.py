"""Semantic mutation testing of a compiled spec agent (TDAD, DESIGN §9), on :mod:`adat.mutation`.

Per intent of the mutation pack: run the activation probe on the compiled prompt (the base);
ask MutationSmith for a mutant, run the probe on it, and repeat up to the pack's
``max_attempts`` until the probe's predicates hold on the mutant (and did not on the base). An
activated mutant runs every visible test once; whether a test kills it (fails on it and passed
on the compiled prompt in all reruns) is decided in SQL (``int_variant_kills``), over these rows
and the reliability stage's reruns. Non-activated mutants are recorded, never scored.

MutationSmith (:func:`mutant_maker`) is given the compiled artifact, the intent and the pack's
constraints (:class:`MutationSmithInput`) -- never a test.

A probe is user turns and predicates; the tools need fixtures, and a pack's turns name the ids of
its authors' own fixtures. So the probe runs in a few scenarios taken from the suite, never
written for one spec: its turns with the fixtures of each of the visible tests that share the
most words with it (case name and turns against the test's title, leaf and turns) and expect
the tools its trace predicates name to be called, then those tests' own turns. A scenario where the probe's predicates already hold on the compiled prompt
cannot tell a mutant apart and is dropped; the mutant is activated when the predicates hold in
one of the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from adat.contracts.tdad_clauses import overlap
from adat.contracts.tdad_roles import (
    PROMPT_MUTATIONSMITH,
    ROLE_MUTATIONSMITH,
    MutationSmithInput,
    MutationSmithOutput,
)
from adat.llm.types import TesterLLM
from adat.mutation import activate, predicates_hold
from adat.records import MutantRow, SpecResult
from adat.stages.provenance import Provenance
from adat.tdad.compiler import artifact_diff
from adat.tdad.suite_runs import RunTest, run_tests, stage_row

#: make(compiled artifact, mutation, attempt) -> mutant artifact
MakeMutant = Callable[[Any, Any, int], Any]


def mutant_maker(client: TesterLLM, pack: Any) -> MakeMutant:
    """``make(compiled artifact, mutation, attempt) -> mutant artifact`` through the role."""

    def make(artifact: Any, mutation: Any, attempt: int) -> Any:
        inp = MutationSmithInput(mutation_id=mutation.id, intent=mutation.intent,
                                 constraints=list(pack.generator.constraints), system_prompt=artifact.system_prompt,
                                 tool_descriptions=artifact.tool_views(), attempt=attempt)
        return artifact.edited_by(client, ROLE_MUTATIONSMITH, PROMPT_MUTATIONSMITH, inp, MutationSmithOutput,
                                  attempt)

    return make


@dataclass
class MutationOutcome:
    mutants: list[MutantRow] = field(default_factory=list)
    results: list[SpecResult] = field(default_factory=list)


#: visible tests whose fixtures a probe is tried with (the closest ones by words and tools)
PROBE_SCENARIOS = 4
_CALLS = ("tool_called", "tool_order", "tool_called_exactly")


def probe_tests(mutation: Any, visible: Sequence[Any], limit: int = PROBE_SCENARIOS) -> list[Any]:
    """The probe as spec tests: its turns with the fixtures of each of the closest visible tests,
    then those tests' own turns (the same situation as the suite states it), closest first."""
    probe = mutation.activation_probe
    words = " ".join([probe.case.replace("_", " "), *probe.user_turns])

    trace, answer = probe.expect_violation.trace, probe.expect_violation.json_
    named = set(trace.tools()) if trace else set()  # the tools the predicates are about
    violating = {str(v) for v in answer.equals.values()} | {str(v) for vs in answer.in_.values() for v in vs} \
        if answer else set()

    def score(test: Any) -> float:
        # words shared with the probe, plus the share of its tools the test expects called, less
        # one for a test that expects the violating answer (the compiled prompt already gives it)
        called = {t for a in test.assertions if a.kind in _CALLS for t in a.tools}
        expects = {str(v) for a in test.assertions if a.kind == "decision_in" for v in a.values}
        return (overlap(words, " ".join([test.title, test.leaf_id.replace("_", " "), *test.user_turns]))
                + (len(named & called) / len(named) if named else 0.0) - bool(violating & expects))

    closest = sorted(visible, key=lambda t: (-score(t), visible.index(t)))[:limit]
    out = []
    for form in ("probe", "suite"):
        for n, test in enumerate(closest):
            turns = list(probe.user_turns) if form == "probe" else list(test.user_turns)
            out.append(test.model_copy(update={
                "test_id": f"probe-{mutation.id}-{form}{n}", "title": f"activation probe {probe.case or mutation.id}",
                "user_turns": turns, "derived_from": test.test_id,
                # the probe is judged by its predicates; keep only assertions valid on any turns
                "assertions": [a for a in test.assertions if a.kind in ("response_fields", "no_pii") and a.turn is None]
                or [a.model_copy(update={"turn": None}) for a in test.assertions[:1]]}))
    return out


def mutate_compiled(compiled: Any, pack: Any, visible: Sequence[Any], run_test: RunTest, make: MakeMutant, *,
                    run_id: str, provenance: Provenance = Provenance(), workers: int = 1) -> MutationOutcome:
    """Every intent of ``pack`` against ``compiled``; see the module docstring (``provenance``:
    MutationSmith's model and prompt, stamped on every mutant row)."""
    out = MutationOutcome()
    spec_id, spec_version = (visible[0].spec_id, visible[0].spec_version) if visible else ("", "")
    for mutation in pack.mutations:
        predicates = mutation.activation_probe.expect_violation
        probes = probe_tests(mutation, visible)
        base_holds: list[bool | None] = []
        for probe in probes:
            base_run = run_test(compiled, probe, 0)
            out.results.append(stage_row(base_run, run_id=run_id, variant=f"{mutation.id}@base",
                                         digest=compiled.digest(), scope="probe"))
            base_holds.append(predicates_hold(predicates, base_run))
        # only scenarios where the base shows no violation can tell the mutant apart
        open_probes = [p for p, held in zip(probes, base_holds, strict=True) if held is False]

        def holds(mutant: Any, mutation: Any = mutation, open_probes: list[Any] = open_probes) -> bool | None:
            for probe in open_probes:
                result = run_test(mutant, probe, 0)
                out.results.append(stage_row(result, run_id=run_id, variant=mutation.id, digest=mutant.digest(),
                                             scope="probe"))
                if predicates_hold(mutation.activation_probe.expect_violation, result):
                    return True
            return False if open_probes else None

        activation = activate(partial(make, compiled, mutation), holds, base_holds=None if not open_probes else False,
                              max_attempts=pack.generator.max_attempts)
        mutant = activation.variant
        if activation.activated and mutant is not None:
            out.results += [stage_row(r, run_id=run_id, variant=mutation.id, digest=mutant.digest(), scope="suite")
                            for r in run_tests(run_test, mutant, visible, workers=workers)]
        out.mutants.append(MutantRow(
            run_id=run_id, mutant_id=mutation.id, kind="prompt", spec_id=spec_id, spec_version=spec_version,
            intent=mutation.intent, base_digest=compiled.digest(),
            prompt_digest=mutant.digest() if mutant is not None else "", activated=activation.activated,
            activation_attempts=activation.attempts, probe_holds_on_base=not open_probes,
            diff=artifact_diff(compiled, mutant) if mutant is not None else "",
            **provenance.fields()))
    return out
