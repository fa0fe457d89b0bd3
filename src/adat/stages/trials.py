"""Repeated trials of a suite: k fresh-session executions per test, and re-judging where they disagree.

``run-suite --repeat k`` (``execution.repeat``) executes every test k times against the same agent
variant, each trial in a fresh session, each judged on its own (docs/trials.md). Whether a test is
*flaky* and why is read from these rows by ``sql/intermediate/int_test_trials.sql``:

* the agent is flaky when the trials' verdicts differ and so do the agent's replies;
* the judge is flaky when the same transcript is judged differently. Two trials with identical
  replies and different verdicts show it directly; to see it when the replies differ too, every
  trial of a test whose verdicts disagree is judged a second time (:func:`rejudge_disagreeing`),
  and a second verdict unlike the first marks the judge. Re-judging only disagreeing tests costs
  nothing on a stable suite (the common case) and at most k judge calls per disagreeing test.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from adat.records import Execution, TestCase, Verdict

#: one unit of work of a repeated phase: a test and its trial number (1..k)
Trial = tuple[TestCase, int]


def trials_of(tests: Sequence[TestCase], repeat: int) -> list[Trial]:
    """Every (test, trial) pair, trials of one test next to each other (suite order, then trial)."""
    return [(test, trial) for test in tests for trial in range(1, max(1, repeat) + 1)]


def disagreeing(executions: Sequence[Execution], verdicts: Sequence[Verdict]) -> list[Execution]:
    """Executions of the tests whose judged trials on one variant do not all have the same verdict."""
    by_id = {v.execution_id: v for v in verdicts}
    groups: dict[tuple[str, str], list[Execution]] = defaultdict(list)
    for execution in executions:
        verdict = by_id.get(execution.execution_id)
        if verdict is not None and verdict.judged:
            groups[(execution.test_id, execution.agent_variant)].append(execution)
    return [e for group in groups.values() if len({by_id[x.execution_id].verdict for x in group}) > 1
            for e in group]


def rejudge_disagreeing(executions: Sequence[Execution], verdicts: Sequence[Verdict], tests: Sequence[TestCase],
                        judge: Callable[[TestCase, Execution], Verdict],
                        run: Callable[[Callable[[Execution], Verdict], list[Execution]], list[Verdict]]) -> list[Verdict]:
    """A second verdict on every trial of each test whose trials disagree (``judge(test, execution)``
    with the re-judgement cache tag, mapped by ``run`` so it shares the phase's workers)."""
    todo = disagreeing(executions, verdicts)
    if not todo:
        return []
    by_test = {t.test_id: t for t in tests}
    return run(lambda execution: judge(by_test[execution.test_id], execution), todo)
