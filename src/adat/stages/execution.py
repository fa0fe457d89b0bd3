"""Execution: the runner sends a test's step hints to a fresh session (paper §2.1, DESIGN §4.6).

Hints are sent in order (the one conversation loop, :func:`adat.conversation.converse`, with the
hints as a scripted user) until all are sent or ``turn_limit`` user turns were sent. A target
failure is recorded on the execution (``ended_by='error'``), never raised, so one bad session
does not stop a suite.

The stage's step runs every test of a phase in-process (:func:`execution_step`); under
``execution.task_runner: dask`` ``flows/execute.py`` maps :func:`execute_and_judge` over the tests
as Prefect tasks instead and :func:`record_executions` writes what they returned with the same
:func:`write_phase` (the same test selection, owners and variant). Each mapped call builds its
own target and LLM client, so it can run in another process or on another machine that sees the
same data dir. ``run-suite`` executes another run's suite: :func:`check_run_suite` checks it first.

Repeated trials (``run-suite --repeat k``, ``execution.repeat``; docs/trials.md): every test is
executed k times against the same agent variant, each trial in a fresh session, each judged on
its own. Whether a test is *flaky* and why is read from these rows by
``sql/intermediate/int_test_trials.sql``:

* the agent is flaky when the trials' verdicts differ and so do the agent's replies;
* the judge is flaky when the same transcript is judged differently. Two trials with identical
  replies and different verdicts show it directly; to see it when the replies differ too, every
  trial of a test whose verdicts disagree is judged a second time (:func:`disagreeing`), and a
  second verdict unlike the first marks the judge. Re-judging only disagreeing tests costs
  nothing on a stable suite (the common case) and at most k judge calls per disagreeing test.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from adat import conversation
from adat.config import RunConfig
from adat.conversation import ScriptedUser
from adat.engine.context import RunContext, phase_owner
from adat.engine.stage_runner import Outcome
from adat.errors import UserError
from adat.records import Execution, Record, RuleEvent, Run, TestCase, Verdict
from adat.stages.concurrency import map_in_order
from adat.stages.ids import execution_id
from adat.stages.judging import judge_execution
from adat.stages.process_checks import checks_for, process_checks_of
from adat.targets.base import Target
from adat.targets.trial import in_trial
from adat.warehouse.layout import live_parts
from adat.warehouse.parquet import partition_dir, read_records


def execute_test(target: Target, test: TestCase, run_id: str, *, agent_variant: str = "original",
                 trial: int = 1) -> Execution:
    """Run ``test`` once against ``target`` in a fresh session and record the conversation.

    ``trial`` numbers repeated executions of the test (1..k); trial 1 keeps the id a single
    execution always had."""
    with in_trial(trial):
        conv = conversation.converse(target, ScriptedUser(list(test.step_hints)), turn_limit=test.turn_limit)
    execution = Execution(execution_id=execution_id(run_id, test.test_id, agent_variant, trial - 1),
                          run_id=run_id, test_id=test.test_id, trial=trial,
                          agent_id=str(getattr(target, "agent_id", "")), agent_variant=agent_variant,
                          session_id=conv.session_id, turns=conv.turns, ended_by=conv.ended_by, error=conv.error,
                          duration_s=conv.duration_s)
    if conv.failure is not None and not conv.session_id:
        execution.retries = conv.failure.retries  # a failed reset's own retries
    retries = getattr(target, "transport_retries", None)  # the http target counts its retries
    if callable(retries) and execution.session_id:
        execution.retries += int(retries(execution.session_id))
    return execution


def execution_step(ctx: RunContext, kind: str = "plain", suite_run_id: str | None = None,
                   fault: str | None = None, test_ids: list[str] | None = None) -> Outcome:
    """Execute tests of ``kind`` (of this run, or of ``suite_run_id``) in fresh sessions and judge them.

    ``test_ids`` limits the execution to those tests (the regression runs only the tests mapped
    to a fault). The rows are this phase's own parts of the run (:func:`write_phase`). The variant
    is ``fault``, else the config's ``target.fault``, else 'original'.
    """
    cfg, run_id = ctx.cfg, ctx.run_id
    variant = ctx.variant(fault)
    tests = phase_tests(ctx, kind, suite_run_id, test_ids)
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    client = ctx.client
    progress = ctx.progress(f"executions on {fault}" if fault else f"executions ({kind}, {variant})")
    # Each worker executes a test and judges it at once (no barrier between the two); judge calls go
    # to the tester's LLM endpoint, so llm.concurrency bounds them (not execution.workers).
    judge_slots = threading.BoundedSemaphore(cfg.llm.concurrency)

    checks = process_checks_of(ctx, suite_run_id)

    def judge(test: TestCase, execution: Execution, rejudge: bool = False) -> Verdict:
        with judge_slots:
            return judge_execution(cfg, client, test, execution, run_id, rejudge=rejudge,
                                   checks=checks_for(checks, test.statement_id))

    def execute_and_judge(trial: tuple[TestCase, int]) -> tuple[Execution, Verdict]:
        test, number = trial
        execution = execute_test(target, test, run_id, agent_variant=variant, trial=number)
        return execution, judge(test, execution)

    # k trials of each test are k independent units of work (trials of one test next to each
    # other): 16 workers run 16 sessions at once
    trials = [(test, trial) for test in tests for trial in range(1, max(1, cfg.execution.repeat) + 1)]
    pairs = map_in_order(execute_and_judge, trials, cfg.execution.workers, name="adat-exec",
                         progress=progress)
    executions, verdicts = [e for e, _ in pairs], [v for _, v in pairs]
    rejudged = None  # a single trial has nothing to disagree with
    if cfg.execution.repeat > 1:  # a second verdict on every trial of each test whose trials disagree
        by_test = {t.test_id: t for t in tests}
        rejudged = map_in_order(lambda e: judge(by_test[e.test_id], e, rejudge=True),
                                disagreeing(executions, verdicts), cfg.execution.workers, name="adat-exec")
    return write_phase(ctx, tests, executions, verdicts, ctx.rule_events(target, executions, variant), kind,
                       variant, suite_run_id, rejudged=rejudged)


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


class ExecutedTest(Record):
    """One test's execution, its verdict and the target's side log of its session (a mapped task's result)."""

    execution: Execution
    verdict: Verdict
    rule_events: list[RuleEvent] = []


def phase_tests(ctx: RunContext, kind: str = "plain", suite_run_id: str | None = None,
                test_ids: list[str] | None = None) -> list[TestCase]:
    """The tests of ``kind`` ('all' = every kind) of ``ctx``'s run or of ``suite_run_id``, in suite
    order, limited to ``test_ids`` when given; a suite run with no tests is a user error."""
    tests = [t for t in cast(list[TestCase], ctx.read("tests", suite_run_id or ctx.run_id))
             if kind == "all" or t.kind == kind]
    if suite_run_id and suite_run_id != ctx.run_id and not tests:
        raise no_suite(suite_run_id, ctx.root)
    if test_ids is not None:
        wanted = set(test_ids)
        tests = [t for t in tests if t.test_id in wanted]
    return tests


def write_phase(ctx: RunContext, tests: list[TestCase], executions: list[Execution], verdicts: list[Verdict],
                events: list[RuleEvent], kind: str, variant: str, suite_run_id: str | None = None,
                rejudged: list[Verdict] | None = None) -> Outcome:
    """Write one execution phase's rows as its own parts of the run (owner ``execution.<kind>.<variant>``):
    re-executing replaces them and nothing else, so plain and transformed tests and every faulty
    variant accumulate in one run. A run-suite run also gets a copy of the suite it executed."""
    owner = phase_owner(kind, variant)
    if suite_run_id and suite_run_id != ctx.run_id:
        ctx.write("tests", [t.model_copy(update={"run_id": ctx.run_id}) for t in tests], owner="suite")
    ctx.write("executions", executions, owner=owner)
    ctx.write("verdicts", verdicts, owner=owner)
    if rejudged is not None:  # repeated trials only
        ctx.write("rejudgements", rejudged, owner=owner)
    ctx.write("rule_events", events, owner=owner)
    return Outcome(counts=Counter(v.verdict for v in verdicts), tables={"executions": len(executions)},
                   step=f"execution:{kind}:{variant}", data={"agent_variant": variant})


def execution_tests(cfg: RunConfig, run_id: str, kind: str = "plain",
                    suite_run_id: str | None = None) -> list[TestCase]:
    """:func:`phase_tests` of run ``run_id``."""
    return phase_tests(RunContext(cfg, run_id), kind, suite_run_id)


def execute_and_judge(cfg: RunConfig, run_id: str, test: TestCase, kind: str = "plain",
                      fault: str | None = None) -> ExecutedTest:
    """Run ``test`` in a fresh session of the target (or its ``fault`` variant) and judge it."""
    ctx = RunContext(cfg, run_id)
    variant = ctx.variant(fault)
    target = ctx.target(fault=fault, scope=f"{kind}-{variant}")
    execution = execute_test(target, test, run_id, agent_variant=variant)
    checks = checks_for(process_checks_of(ctx, test.run_id), test.statement_id)
    verdict = judge_execution(cfg, ctx.client, test, execution, run_id, checks=checks)
    events = ctx.rule_events(target, [execution], variant)
    ctx.flush_calls()
    return ExecutedTest(execution=execution, verdict=verdict, rule_events=events)


def record_executions(ctx: RunContext, tests: list[TestCase], results: list[ExecutedTest],
                      kind: str = "plain", suite_run_id: str | None = None, fault: str | None = None) -> Outcome:
    """Write what the mapped tasks returned, as :func:`write_phase` (the in-process stage's write)."""
    return write_phase(ctx, tests, [r.execution for r in results], [r.verdict for r in results],
                       [e for r in results for e in r.rule_events], kind, ctx.variant(fault), suite_run_id)


def has_rows(root: Path, table: str, run_id: str) -> bool:
    """Whether run ``run_id``'s partition of ``table`` holds a row (Parquet footers only, no rows read)."""
    import pyarrow.parquet as pq

    directory = partition_dir(root, table, run_id)
    return any(pq.read_metadata(path).num_rows for path in live_parts(directory))


def check_run_suite(cfg: RunConfig, suite_run_id: str) -> None:
    """UserError unless ``suite_run_id`` has tests and the config's run id is free for a run-suite run.

    The run-suite run must differ from the suite run and must not be a run another flow built
    (its tables would be replaced); an earlier run-suite run of the same id is resumed.
    """
    root = cfg.data_path()
    if not has_rows(root, "tests", suite_run_id):
        raise no_suite(suite_run_id, root)
    if cfg.run_id is None:
        return
    if cfg.run_id == suite_run_id:
        raise UserError(f"run_id {cfg.run_id!r} is the suite's own run; run-suite writes a new run", field="run_id",
                        fix="remove run_id from the config (a new one is made) or choose another")
    earlier = cast(list[Run], read_records(root, "runs", run_id=cfg.run_id))
    if earlier and earlier[-1].flow != "run_suite":
        raise UserError(f"run {cfg.run_id!r} already exists (built by {earlier[-1].flow}); run-suite would replace "
                        "its tables", field="run_id", fix="remove run_id from the config (a new one is made) or choose another")


def no_suite(suite_run_id: str, root: Path) -> UserError:
    """The one-line error for a ``--suite`` run without tests."""
    return UserError(f"run {suite_run_id!r} has no tests in {root}", field="--suite",
                     fix="pass the run id of a run that built a suite (adat sql stg_runs), or the --data-dir it is in")
