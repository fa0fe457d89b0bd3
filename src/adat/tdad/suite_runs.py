"""Running spec tests on a prompt artifact and recording each execution as a stage row.

Every TDAD stage (compile, reruns, mutants) runs tests the same way: through one ``RunTest``
callable (the flow binds ``adat.tdad.runner.run_spec_test`` to the run's config, client, spec
and target; unit tests bind fakes) and into :class:`adat.records.SpecResult` rows that say which
stage, iteration and scope the execution belongs to.

Reliability (DESIGN §9) is every test of a spec version rerun k times on the compiled prompt: k
defaults to the spec's ``defaults.reliability.reruns`` (``spec_suite.reruns`` overrides it).
The rows give HPR (hidden tests, first run), pass^k and per-test pass rates, the flaky tests,
SURS (v1 invariant tests on a v2 compilation: scope ``invariant`` when they passed on v1,
``invariant_v1_failed`` when not, ``not_runnable`` rows for those that cannot run on v2) and the
base of mutation kills: a test kills a mutant only if it passed here in every rerun.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from adat.records import SpecResult
from adat.stages.concurrency import map_in_order


class RunTest(Protocol):
    """Run one spec test on one artifact; ``rerun`` separates repeats (pass^k)."""

    def __call__(self, artifact: Any, test: Any, rerun: int) -> SpecResult: ...


def stage_row(result: SpecResult, *, run_id: str, variant: str, digest: str, iteration: int = 0, scope: str = "",
              rerun: int = 0) -> SpecResult:
    """A stage's row for one runner result (:func:`adat.tdad.runner.run_spec_test`)."""
    return result.model_copy(update={
        "run_id": run_id, "result_id": f"{variant}-{digest}-{scope}-{iteration}-{result.test_id}-{rerun}",
        "agent_variant": variant, "artifact_digest": digest, "iteration": iteration, "scope": scope, "rerun": rerun})


def run_tests(run_test: RunTest, artifact: Any, tests: Sequence[Any], *, workers: int = 1,
              rerun: int = 0) -> list[SpecResult]:
    """Runner results of ``tests`` on ``artifact``, in test order."""
    return map_in_order(lambda test: run_test(artifact, test, rerun), list(tests), workers, name="adat-spec")


def rerun_suite(artifact: Any, tests: Sequence[Any], run_test: RunTest, *, k: int, run_id: str, scope: str,
                workers: int = 1) -> list[SpecResult]:
    """``k`` runs of every test on ``artifact`` (rerun 0 .. k-1), as ``spec_reruns`` rows."""
    if k < 1:
        raise ValueError("k must be >= 1")
    rows: list[SpecResult] = []
    for rerun in range(k):
        rows += [stage_row(r, run_id=run_id, variant="compiled", digest=artifact.digest(), scope=scope, rerun=rerun)
                 for r in run_tests(run_test, artifact, tests, workers=workers, rerun=rerun)]
    return rows


def not_runnable_rows(artifact: Any, tests: Sequence[Any], why: dict[str, str], *, run_id: str) -> list[SpecResult]:
    """One ``not_runnable`` row per v1 invariant test that cannot run on v2 (``why``: test id ->
    reason): never executed, never passed, listed by ``tdad_surs`` and counted nowhere else."""
    return [SpecResult(run_id=run_id, result_id=f"not-runnable-{t.test_id}", spec_id=t.spec_id,
                       spec_version=t.spec_version, test_id=t.test_id, split=t.split, family=t.family,
                       agent_variant="compiled", artifact_digest=artifact.digest(), scope="not_runnable",
                       passed=False, error=f"not runnable on v2: {why[t.test_id]}")
            for t in tests if t.test_id in why]
