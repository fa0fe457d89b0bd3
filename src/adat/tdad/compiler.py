"""Prompt compilation (TDAD's PromptSmith loop, DESIGN §9).

From a start artifact (the shipped seed prompt for v1, the compiled v1 prompt for v2) each
iteration runs the visible tests, groups the failures by spec clause, asks PromptSmith for a
candidate edit, tries it first on the failing tests only (the inner loop, up to
``inner_attempts`` candidates) and, when it fixes at least one of them, runs every visible test
on it: the candidate is promoted only if the visible pass count does not fall. Compilation stops
when every visible test passes, when no candidate fixes anything, or at the spec's
``compile_budget.max_iterations``. Every iteration is a :class:`CompileIteration` row.

Only visible tests ever enter this module (a hidden one is refused): PromptSmith's input
(:class:`PromptSmithInput`, bound to the client by :func:`promptsmith_proposer`) is built from the
artifact, the spec's decision enum and the failing visible tests with their clauses, nothing else.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from adat.contracts.tdad_roles import (
    PROMPT_PROMPTSMITH,
    ROLE_PROMPTSMITH,
    ClauseFailures,
    FailedAssertionView,
    FailingTestView,
    PromptSmithInput,
    PromptSmithOutput,
)
from adat.llm.types import TesterLLM
from adat.records import CompileIteration, SpecResult
from adat.stages.provenance import Provenance
from adat.tdad.suite_runs import RunTest, run_tests, stage_row

#: propose(parent artifact, failures by clause, visible total, visible passed, attempt) -> candidate
Propose = Callable[[Any, list[ClauseFailures], int, int, int], Any]


def promptsmith_proposer(client: TesterLLM, spec: Any) -> Propose:
    """A ``Propose`` callable asking the ``promptsmith`` role for each candidate."""

    def propose(artifact: Any, failures: list[ClauseFailures], visible_tests: int, visible_passed: int,
                attempt: int) -> Any:
        inp = PromptSmithInput(spec_title=spec.title or spec.spec_id, system_prompt=artifact.system_prompt,
                               tool_descriptions=artifact.tool_views(),
                               decision_enum=list(spec.response_contract.decision_enum), failures=failures,
                               visible_tests=visible_tests, visible_passed=visible_passed, attempt=attempt)
        return artifact.edited_by(client, ROLE_PROMPTSMITH, PROMPT_PROMPTSMITH, inp, PromptSmithOutput, attempt)

    return propose


@dataclass
class CompileOutcome:
    artifact: Any
    iterations: list[CompileIteration] = field(default_factory=list)
    results: list[SpecResult] = field(default_factory=list)


def artifact_text(artifact: Any) -> str:
    """The artifact as one text (system prompt, then one block per tool): what diffs compare."""
    tools = "".join(f"\n## tool {name}\n{text}\n" for name, text in sorted(artifact.tool_descriptions.items()))
    return artifact.system_prompt.rstrip("\n") + "\n" + tools


def artifact_diff(before: Any, after: Any) -> str:
    return "".join(difflib.unified_diff(artifact_text(before).splitlines(keepends=True),
                                        artifact_text(after).splitlines(keepends=True),
                                        fromfile=before.digest(), tofile=after.digest(), n=1))


def group_failures(tests: Sequence[Any], results: Sequence[Any], clause_text: dict[str, str],
                   present: frozenset[str] = frozenset()) -> list[ClauseFailures]:
    """Failing tests grouped by the clause of each failed assertion, most failing tests first.

    A failing test's other clauses (the nodes of its path) that have text and are not yet
    ``present`` in the prompt are blamed too, so routing failures reach the steps the prompt lacks.
    """
    by_id = {t.test_id: t for t in tests}
    groups: dict[str, list[FailingTestView]] = {}
    for result in results:
        if result.passed:
            continue
        test = by_id[result.test_id]
        failed = [a for a in result.assertion_results if a.outcome == "fail"]
        clauses = [a.clause or (test.clauses[0] if test.clauses else test.leaf_id) for a in failed] or test.clauses
        # the test also derives from the clauses of its path: those the prompt still lacks share the blame
        clauses += [c for c in test.clauses if clause_text.get(c) and c not in present and c not in clauses]
        for clause in dict.fromkeys(clauses or [test.leaf_id]):
            view = FailingTestView(
                test_id=test.test_id, family=test.family, leaf_id=test.leaf_id, user_turns=list(test.user_turns),
                failed=[FailedAssertionView(kind=a.kind, clause=a.clause, detail=a.detail) for a in failed
                        if (a.clause or clause) == clause],
                replies=[t.reply for t in result.turns])
            groups.setdefault(clause, []).append(view)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [ClauseFailures(clause=c, clause_text=clause_text.get(c, ""), tests=views) for c, views in ordered]


def compile_artifact(start: Any, tests: Sequence[Any], run_test: RunTest, propose: Propose, *,
                     clause_text: dict[str, str], max_iterations: int, inner_attempts: int, run_id: str,
                     start_label: str, provenance: Provenance = Provenance(), workers: int = 1) -> CompileOutcome:
    """Compile ``start`` against the visible ``tests``; see the module docstring (``provenance``:
    PromptSmith's model and prompt, stamped on every iteration row)."""
    hidden = [t.test_id for t in tests if t.split != "visible"]
    if hidden:
        raise ValueError(f"compilation takes visible tests only; got hidden {hidden[:3]}")
    spec_id, spec_version = (tests[0].spec_id, tests[0].spec_version) if tests else ("", "")
    out = CompileOutcome(artifact=start)
    meta = dict(run_id=run_id, spec_id=spec_id, spec_version=spec_version, budget=max_iterations,
                **provenance.fields())

    def run(artifact: Any, chosen: Sequence[Any], iteration: int, scope: str) -> list[Any]:
        results = run_tests(run_test, artifact, chosen, workers=workers)
        variant = "start" if iteration == 0 else "candidate"
        out.results += [stage_row(r, run_id=run_id, variant=variant, digest=artifact.digest(),
                                  iteration=iteration, scope=scope) for r in results]
        return results

    current, rejected = start, set()
    current_results = run(current, tests, 0, "full")
    out.iterations.append(CompileIteration(**meta, iteration=0, candidate_digest=current.digest(), promoted=True,
                                           in_effect_digest=current.digest(), start=start_label,
                                           artifact_json=current.model_dump_json()))
    for iteration in range(1, max_iterations + 1):
        failing = [r for r in current_results if not r.passed]
        if not failing:
            break
        present = frozenset(c for c, text in clause_text.items() if text and text in current.system_prompt)
        groups = group_failures(tests, failing, clause_text, present)
        failing_tests = [t for t in tests if t.test_id in {r.test_id for r in failing}]
        passed_before = len(current_results) - len(failing)
        candidate, tried, fixes = current, 0, False
        for attempt in range(inner_attempts):
            proposal = propose(current, groups, len(tests), passed_before, attempt)
            tried += 1
            if proposal.digest() == current.digest() or proposal.digest() in rejected:
                continue  # nothing new to try
            candidate = proposal
            fixes = any(r.passed for r in run(candidate, failing_tests, iteration, "failing"))
            if fixes:
                break
        full = run(candidate, tests, iteration, "full") if fixes else []
        promoted = fixes and sum(r.passed for r in full) >= passed_before
        out.iterations.append(CompileIteration(
            **meta, iteration=iteration, parent_digest=current.digest(), candidate_digest=candidate.digest(),
            promoted=promoted, in_effect_digest=(candidate if promoted else current).digest(), inner_attempts=tried,
            diff=artifact_diff(current, candidate), failing_tests=sorted(r.test_id for r in failing),
            failing_clauses=[g.clause for g in groups],
            artifact_json=(candidate if promoted else current).model_dump_json()))
        if promoted:
            current, current_results = candidate, full
        elif candidate is not current:
            rejected.add(candidate.digest())
        elif not fixes:
            break  # no candidate fixes a failing test: another iteration would see the same failures
    out.artifact = current
    return out
