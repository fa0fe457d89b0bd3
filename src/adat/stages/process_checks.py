"""Process checks (AdaT2, issue 27): statements about *how* the agent must act, checked over the tool trace.

A statement such as "I need your explicit confirmation before I cancel an order" says what the
agent does, not only what it says. When the target reports its tool calls, the judge's model
(prompt ``process_checks``) maps each grounded statement, given the tool names seen in discovery,
to zero or more typed assertions (:class:`~adat.spec_records.SpecAssertion`, the same model TDAD's
spec tests use). At judging time :func:`check_execution` evaluates the assertions of a test's
statement, then those of the suite's other statements (:func:`checks_for`), over the execution's tool trace with the one shared evaluator
(:mod:`adat.trace_assertions`), and :func:`apply_checks` makes a verdict *fail* when a check
fails, naming the statement and the assertion. A check the target cannot show (no tool call
reported) is *not observable* and leaves the judge's verdict alone; ``judge.use_tool_trace:
false`` leaves every check out of judging, for a text-only comparison.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import cast

from adat.config import RunConfig
from adat.contracts.process_check_roles import PROMPT_PROCESS_CHECKS, ProcessCheckInput, ProcessCheckOutput
from adat.engine.context import RunContext
from adat.engine.stage_runner import Outcome
from adat.llm.types import LLMError, TesterLLM
from adat.records import ProcessAssertion, ProcessCheckResult, Run, Statement, Trace, Turn, Verdict
from adat.spec_records import SpecAssertion, SpecTurn
from adat.stages.provenance import call_role
from adat.stages.statements import ranked_statements, top_statements
from adat.trace_assertions import evaluate

log = logging.getLogger(__name__)


def process_checks_step(ctx: RunContext) -> Outcome:
    """The process checks of the top-ranked statements, over the tools seen in discovery; none for
    a text-only target or ``judge.use_tool_trace: false``."""
    traces = cast(list[Trace], ctx.read("traces"))
    rows = map_statements(ctx.cfg, ctx.client, ranked_statements(ctx), traces, ctx.run_id)
    ctx.write("process_assertions", rows)
    return Outcome(counts={"process_checks": len(rows), "statements_checked": len({r.statement_id for r in rows}),
                           "tools_seen": len(tools_seen(traces))})


def process_checks_of(ctx: RunContext, suite_run_id: str | None = None) -> dict[str, list[ProcessAssertion]]:
    """The process checks of each statement id of this run (or of the suite run ``suite_run_id``);
    none when ``judge.use_tool_trace`` is off."""
    if not ctx.cfg.judge.use_tool_trace:
        return {}
    rows = cast(list[ProcessAssertion], ctx.read("process_assertions", suite_run_id or ctx.run_id))
    if not rows and suite_run_id is None:
        # a run-suite run maps no statements of its own: its fault regressions (``adat evaluate``
        # on it) judge with the checks of the suite run it executed, as its own executions did
        suite = next((r.suite_run_id for r in reversed(cast(list[Run], ctx.read("runs"))) if r.suite_run_id), "")
        if suite and suite != ctx.run_id:
            rows = cast(list[ProcessAssertion], ctx.read("process_assertions", suite))
    return by_statement(rows)


def tools_seen(traces: Sequence[Trace]) -> list[str]:
    """The names of the tools the agent reported calling in ``traces``, sorted (empty: a text-only target)."""
    return sorted({c.name for trace in traces for turn in trace.turns for c in turn.tool_calls})


def map_statements(cfg: RunConfig, client: TesterLLM, statements: Sequence[Statement], traces: Sequence[Trace],
                   run_id: str) -> list[ProcessAssertion]:
    """The process checks of the top ``generation.n`` grounded statements (the ones that get tests).

    No model is asked when the target reported no tool call in discovery (nothing to map onto).
    ``judge.use_tool_trace`` does not stop the mapping, only the checks' use at judging time: a
    suite built either way can be run with the switch on and off (the text-only comparison).
    An assertion naming a tool never seen is dropped (a model cannot check a tool it invented); a
    failed call maps its statement to no checks.
    """
    tools = tools_seen(traces)
    if not tools:
        return []
    out: list[ProcessAssertion] = []
    known = set(tools)
    for statement in top_statements(statements, cfg.generation.n):
        request = ProcessCheckInput(statement=statement.text, condition=statement.condition,
                                    behavior=statement.behavior, tool_names=tools)
        try:
            answer, produced = call_role(client, "judge", PROMPT_PROCESS_CHECKS, request, ProcessCheckOutput)
        except LLMError as exc:
            log.warning("process checks of %s: %s", statement.statement_id, exc)
            continue
        for mapped in answer.assertions:
            named = [*mapped.tools, *mapped.gates]
            assertion = SpecAssertion(**mapped.model_dump(), clause=statement.statement_id)
            if not named or not set(named) <= known or assertion.problems():
                continue
            out.append(ProcessAssertion(run_id=run_id, statement_id=statement.statement_id,
                                        statement=statement.text, assertion=assertion, tools_seen=tools,
                                        **produced.fields()))
    return out


def spec_turns(turns: Sequence[Turn], reports_calls: bool) -> list[SpecTurn]:
    """An execution's conversation as the evaluator's turns: one per user message, with the agent's
    replies to it. ``tool_calls`` is None (not observable) unless the target reports its calls."""
    out: list[SpecTurn] = []
    for turn in turns:
        if turn.role == "user":
            out.append(SpecTurn(user=turn.text, tool_calls=[] if reports_calls else None))
        elif out:
            current = out[-1]
            calls = None if current.tool_calls is None else [*current.tool_calls, *turn.tool_calls]
            out[-1] = current.model_copy(update={"reply": (current.reply + "\n" + turn.text).strip(),
                                                 "tool_calls": calls})
    return out


def by_statement(rows: Sequence[ProcessAssertion]) -> dict[str, list[ProcessAssertion]]:
    """The checks of each statement id."""
    out: dict[str, list[ProcessAssertion]] = {}
    for row in rows:
        out.setdefault(row.statement_id, []).append(row)
    return out


def checks_for(checks: Mapping[str, Sequence[ProcessAssertion]], statement_id: str | None) -> list[ProcessAssertion]:
    """The checks a test's executions are judged with: those of its own statement first, then those
    of every other statement of the suite. A rule about how the agent acts (confirm before a
    write, verify before reading an account) holds in every conversation, not only in the tests
    written for its statement: a test about returns whose conversation writes without a
    confirmation breaks it too, and its verdict names the statement it broke. Two statements that
    map to the same assertion both keep it: a failure breaks both, and the auditor checks the
    rules of each (:func:`adat.evaluation.evaluation_steps.with_broken_statements`)."""
    own = list(checks.get(statement_id or "", ()))
    return own + [c for sid in sorted(checks) if sid != statement_id for c in checks[sid]]


def check_execution(checks: Sequence[ProcessAssertion], turns: Sequence[Turn]) -> list[ProcessCheckResult]:
    """Each check judged on one execution. The trace is observable when the execution shows a tool
    call or the check was mapped from tools seen in discovery (the target reports its calls, so a
    turn without any made none); otherwise every check is *not observable*."""
    observable = any(c.tools_seen for c in checks) or any(t.tool_calls for t in turns)
    seen = spec_turns(turns, observable)
    results = []
    for check in checks:
        result = evaluate(check.assertion, seen)
        results.append(ProcessCheckResult(statement_id=check.statement_id, statement=check.statement,
                                          kind=check.assertion.kind, check=describe(check.assertion),
                                          outcome=result.outcome, detail=result.detail))
    return results


def describe(assertion: SpecAssertion) -> str:
    """The assertion in words: its description, then its kind and tools."""
    tools = ", ".join(assertion.tools + [f"or {g}" for g in assertion.gates])
    head = f"{assertion.description} " if assertion.description else ""
    return f"{head}({assertion.kind}: {tools})"


def apply_checks(verdict: Verdict, results: list[ProcessCheckResult]) -> Verdict:
    """The verdict with the checks' results: ``fail`` when one failed, naming the statement and
    the assertion it breaks; a not-observable or passing check leaves the judge's verdict alone."""
    failed = [r for r in results if r.outcome == "fail"]
    update: dict[str, object] = {"process_checks": results, "judge_verdict": verdict.verdict if verdict.judged else None}
    if failed and verdict.judged:
        first = failed[0]
        note = (f" [process check failed: the statement \"{first.statement}\" is broken: {first.check}: "
                f"{first.detail}" + (f"; {len(failed) - 1} more failed" if len(failed) > 1 else "") + "]")
        update |= {"verdict": "fail", "rationale": verdict.rationale + note}
    return verdict.model_copy(update=update)
