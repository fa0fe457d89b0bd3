"""Running spec tests on a prompt artifact and recording each execution as a stage row.

Every TDAD stage (compile, reruns, mutants) runs tests the same way: through one ``RunTest``
callable (the flow binds ``adat.tdad.runner.run_spec_test`` to the run's config, client, spec
and target; unit tests bind fakes) and into :class:`adat.records.SpecResult` rows that say which
stage, iteration and scope the execution belongs to.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from adat.records import AssertionOutcome, SpecResult
from adat.stages.concurrency import map_in_order


class RunTest(Protocol):
    """Run one spec test on one artifact; ``rerun`` separates repeats (pass^k)."""

    def __call__(self, artifact: Any, test: Any, rerun: int) -> Any: ...


def stage_row(result: Any, *, run_id: str, variant: str, digest: str, iteration: int = 0, scope: str = "",
              rerun: int = 0) -> SpecResult:
    """A stage's row for one runner result (``adat.spec_records.SpecTestResult``)."""
    return SpecResult(
        run_id=run_id, result_id=f"{variant}-{digest}-{scope}-{iteration}-{result.test_id}-{rerun}",
        spec_id=result.spec_id, spec_version=result.spec_version, test_id=result.test_id, split=result.split,
        family=result.family, agent_variant=variant, artifact_digest=digest, target=result.target,
        iteration=iteration, scope=scope, rerun=rerun, passed=result.passed,
        not_observable=getattr(result, "not_observable", False), error=result.error,
        assertion_results=[AssertionOutcome(index=a.index, kind=a.kind, clause=a.clause, outcome=a.outcome,
                                            detail=a.detail) for a in result.assertion_results],
        turns=list(result.turns), duration_s=result.duration_s)


def run_tests(run_test: RunTest, artifact: Any, tests: Sequence[Any], *, workers: int = 1,
              rerun: int = 0) -> list[Any]:
    """Runner results of ``tests`` on ``artifact``, in test order."""
    call: Callable[[Any], Any] = lambda test: run_test(artifact, test, rerun)  # noqa: E731
    return map_in_order(call, list(tests), workers, name="adat-spec")
