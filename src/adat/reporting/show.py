"""``adat show ID``: one test or one execution, readable in a terminal.

A test shows its goal, steps, criteria and audit label, then its executions on the agent variant
the run executed (``runs.agent_variant``: the original, or the fault of a ``run-suite`` run on a
faulty target) unless another variant, or every one, is asked for; an execution shows its test
and itself. For a ``run-suite`` run it also says the test's verdict in the suite run. Each
execution shows the judge's verdict and rationale, the per-criterion findings, the auditor's
label and the transcript, with the tool calls the agent reported under each of its replies, and
the process checks run over them beside the judge's own verdict. Rows come from
``sql/report/show_*.sql`` and ``item_lookup.sql``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from adat.errors import UserError
from adat.warehouse.queries import ReportQueries

VERDICT_STYLE = {"pass": "bold green", "fail": "bold red", "inconclusive": "bold yellow"}


def lookup(queries: ReportQueries, item_id: str, run_id: str | None) -> dict[str, Any]:
    """The newest run in which ``item_id`` is a test or an execution (``other_runs``: the rest)."""
    found = queries.rows("item_lookup", item_id=item_id, run_id=run_id)
    if not found:
        where = f"run {run_id!r}" if run_id else str(queries.data_root)
        raise UserError(f"no test or execution {item_id!r} in {where}", field="ID",
                        fix="pass a test id (te-…) or an execution id (ex-…) from `adat report` or `adat sql stg_tests`")
    first = found[0]
    return {**first, "other_runs": sorted({r["run_id"] for r in found} - {first["run_id"]})}


def _list(console: Console, title: str, items: list[str] | None, numbered: bool = False) -> None:
    if not items:
        return
    console.print(Text(title, style="bold"))
    for i, item in enumerate(items, 1):
        console.print(Text(f"  {i}. " if numbered else "  - ") + Text(str(item)))


CHECK_STYLE = {"pass": "green", "fail": "bold red", "not_observable": "dim"}


def _process_checks(console: Console, checks: list[dict[str, Any]]) -> None:
    """The process checks beside the judge's verdict (:mod:`adat.stages.process_checks`)."""
    if not checks:
        return
    own = checks[0]["judge_verdict"]
    console.print(Text("  process checks", style="bold") + Text(f" (the judge alone said: {own or 'not judged'})",
                                                                style="dim"))
    shown, passed = split_checks(checks)
    for c in shown:
        outcome = c["outcome"].replace("_", " ")
        console.print(Text(f"    [{outcome}] ", style=CHECK_STYLE.get(c["outcome"], "default"))
                      + Text(f"\"{c['statement']}\": {c['check']}")
                      + Text(f" — {c['detail']}" if c["detail"] else "", style="dim"))
    if passed:
        console.print(Text(f"    [pass] {passed} more check{'s' if passed > 1 else ''} passed", style=CHECK_STYLE["pass"]))


def split_checks(checks: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The checks to list one by one and how many passing ones are left out. Every statement's
    checks run on every test, so a verdict holds dozens: those that failed or could not be
    observed are listed; passing ones are listed only when nothing else is."""
    other = [c for c in checks if c["outcome"] != "pass"]
    return (other, len(checks) - len(other)) if other else (checks, 0)


def _execution(console: Console, queries: ReportQueries, e: dict[str, Any], criteria: list[dict[str, Any]],
               checks: list[dict[str, Any]] | None = None) -> None:
    verdict = e["verdict"] or "not judged"
    head = Text(f"\nexecution {e['execution_id']} on {e['agent_variant']} · ", style="bold")
    head.append(verdict.upper(), style=VERDICT_STYLE.get(verdict, "bold"))
    head.append(f" · {e['n_turns']} messages, ended by {e['ended_by']}")
    console.print(head)
    if e["error"]:
        console.print(Text(f"  error: {e['error']}", style="red"))
    if e["rationale"]:
        console.print(Text("  judge: ", style="bold") + Text(e["rationale"]) + Text(f"  ({e['judged_by']})", style="dim"))
    for c in criteria:
        mark = {True: "holds", False: "does not hold", None: "not shown"}[c["holds"]]
        console.print(Text(f"    [{c['criterion_kind']}, {mark}] ") + Text(c["criterion"])
                      + Text(f" — {c['criterion_rationale']}" if c["criterion_rationale"] else "", style="dim"))
    _process_checks(console, checks or [])
    if e["label"]:
        fault = f", attributed to {e['attributed_fault']}" if e["attributed_fault"] else ""
        console.print(Text("  audit label: ", style="bold") + Text(f"{e['label']}{fault}")
                      + Text(f" — {e['label_rationale']}" if e["label_rationale"] else "", style="dim"))
    console.print(Text("  transcript:", style="bold"))
    for t in queries.rows("execution_transcripts", run_id=e["run_id"], execution_ids=[e["execution_id"]]):
        style = "cyan" if t["role"] == "user" else "default"
        console.print(Text(f"    {t['role']:>5}: ", style=f"bold {style}") + Text(t["text"], style=style))
        for line in tool_call_lines(t.get("tool_calls")):
            console.print(Text("           tool ", style="dim") + Text(line, style="magenta"))


#: a tool call's arguments or result longer than this is cut in the terminal and the report
CALL_PART_CHARS = 200


def tool_call_lines(calls: list[dict[str, Any]] | None) -> list[str]:
    """One line per reported tool call of a transcript row: ``name(arguments) -> result`` or
    ``-> error: text``; none for a user message or a text-only target."""
    lines = []
    for c in sorted(calls or [], key=lambda c: c["order"]):
        outcome = f"error: {c['error']}" if c["error"] is not None else (
            c["result_json"] if c["result_json"] is not None else "(no result reported)")
        lines.append(f"{c['name']}({_cut(c['arguments_json'])}) -> {_cut(outcome)}")
    return lines


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= CALL_PART_CHARS else flat[: CALL_PART_CHARS - 1] + "…"


ALL_VARIANTS = "all"


def _suite_verdict(console: Console, queries: ReportQueries, suite: str, run: str, test_id: str) -> None:
    """A run-suite run's test: its verdict in the suite run and here (``verdict_changes``)."""
    row = next((r for r in queries.rows("verdict_changes", run_a=suite, run_b=run)
                if r["test_id"] == test_id and r["variant_key"] == "(run target)"), None)
    if row is None:
        return
    line = Text(f"\nsuite run {suite}: {row['verdict_a'] or 'not judged'} -> this run: {row['verdict_b'] or 'not judged'}",
                style="bold red" if row["change"] == "pass -> fail" else "dim")
    console.print(line + Text(f"  (adat show {test_id} --run {suite})", style="dim"))


def show_item(console: Console, data_root: Path, item_id: str, run_id: str | None = None,
              variant: str | None = None) -> dict[str, Any]:
    """Print test or execution ``item_id``; ``variant`` None shows a test's executions on the variant
    its run executed, :data:`ALL_VARIANTS` on every variant."""
    queries = ReportQueries(data_root)
    found = lookup(queries, item_id, run_id)
    run, test_id = found["run_id"], found["test_id"]
    overview = queries.rows("run_overview", run_id=run)
    own = (overview[0]["agent_variant"] if overview else None) or "original"
    suite = overview[0]["suite_run_id"] if overview else None
    variant = own if variant is None else variant
    tests = queries.rows("show_test", run_id=run, test_id=test_id)
    if tests:
        t = tests[0]
        console.print(Text(f"test {t['test_id']} ({t['kind']}) · run {run}", style="bold"))
        console.print(Text("goal: ", style="bold") + Text(t["goal"]))
        if t["statement_id"] or t["instruction_id"]:
            console.print(Text(f"from statement {t['statement_id'] or '-'}, instruction {t['instruction_id'] or '-'}",
                               style="dim"))
        _list(console, "steps", t["step_hints"], numbered=True)
        _list(console, "success criteria", t["success_criteria"])
        _list(console, "failure criteria", t["failure_criteria"])
        _list(console, "assumed facts", t["assumed_facts"])
        audit = t["validity"] or "not audited"
        console.print(Text("audit: ", style="bold") + Text(audit)
                      + Text(f" — {'; '.join(t['audit_reasons'])}" if t["audit_reasons"] else "", style="dim"))
    else:
        console.print(Text(f"test {test_id} (not among run {run}'s tests)", style="bold"))
    execution_id = item_id if found["item"] == "execution" else None
    executions = queries.rows("show_executions", run_id=run, test_id=test_id, execution_id=execution_id,
                              agent_variant=None if execution_id or variant == ALL_VARIANTS else variant)
    ids = [e["execution_id"] for e in executions]
    criteria = queries.rows("show_criteria", run_id=run, execution_ids=ids) if ids else []
    checks = queries.rows("show_process_checks", run_id=run, execution_ids=ids) if ids else []
    for e in executions:
        mine = e["execution_id"]
        _execution(console, queries, e, [c for c in criteria if c["execution_id"] == mine],
                   [c for c in checks if c["execution_id"] == mine])
    if not executions:
        console.print(Text(f"\nno executions on {'any variant' if variant == ALL_VARIANTS else variant}", style="dim"))
    if suite:
        _suite_verdict(console, queries, suite, run, test_id)
    status = overview[0]["status"] if overview else None
    if status not in (None, "completed"):  # a stopped run's rows are what it wrote before it stopped
        console.print(Text(f"\nrun {run} is {status} (adat sql stg_runs --run {run} says why)", style="yellow"))
    if found["other_runs"]:
        console.print(Text(f"\nalso in runs: {', '.join(found['other_runs'])} (pick one with --run)", style="dim"))
    return {"run_id": run, "test_id": test_id, "variant": variant, "executions": len(executions)}
