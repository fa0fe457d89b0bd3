"""``adat report``, ``adat export junit``, ``adat diff`` and ``adat show``: reading a finished run.

Registered on the main app in :mod:`adat.cli.main`. None of them starts a flow: they read the
warehouse through the DuckDB catalog (``sql/report``, ``sql/metrics``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from adat.cli.app import (
    AdatTyper,
    DataDir,
    check_data_dir_option,
    check_out_file,
    fail,
    sweep_abandoned,
    terminal_console,
    warehouse_root,
)
from adat.config import RunConfig, check_run_id

console = terminal_console()
export_app = AdatTyper(help="Export a run's results for other tools (CI dashboards).", no_args_is_help=True)

RunArg = Annotated[str, typer.Argument(help="Run id (see `adat sql stg_runs`).")]


def _root(data_dir: Path | None) -> Path:
    check_data_dir_option(data_dir)
    root = (data_dir or RunConfig().data_path()).resolve()
    sweep_abandoned(root)
    return root


def report(
    run: RunArg,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="HTML file (default: DATA/reports/RUN/report.html).")] = None,
    against: Annotated[str | None, typer.Option("--against", help="Run to compare statements with (default: the previous run of the same flow and target).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Write one self-contained HTML report of RUN: plots, failing tests with transcripts, changes."""
    from adat.reporting.html_report import write_report

    check_run_id(run, field="RUN")
    if against is not None:
        check_run_id(against, field="--against")
    check_out_file(out, make_parents=True)
    path = write_report(_root(data_dir), run, out, against)
    console.print(f"report: {path}", markup=False)


@export_app.command("junit")
def export_junit(
    run: RunArg,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="XML file (default: DATA/reports/RUN/junit.xml).")] = None,
    variant: Annotated[list[str] | None, typer.Option("--variant", help="Agent variant (repeatable; default: the "
                                                      "one the run was started against).")] = None,
    fail_on: Annotated[str, typer.Option("--fail-on", help="Gate whose failing tests are the JUnit failures: "
                                         "fail, regression or flaky (as run-suite --fail-on).")] = "fail",
    suite: Annotated[str | None, typer.Option("--suite", help="The suite run the gate compares with "
                                              "(default: the run that holds RUN's tests).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Write RUN's verdicts as JUnit XML: one testcase per test, failures carry rationale and transcript."""
    from adat.reporting.gate import check_mode
    from adat.reporting.junit import write_junit

    check_mode(fail_on)
    check_run_id(run, field="RUN")
    if suite is not None:
        check_run_id(suite, field="--suite")
    check_out_file(out, make_parents=True)
    root = _root(data_dir)
    path = write_junit(root, run, out or root / "reports" / run / "junit.xml", variant or None,
                       suite_run_id=suite, mode=fail_on)
    console.print(f"junit: {path}", markup=False)


def diff(
    run_a: Annotated[str, typer.Argument(help="The earlier run (the baseline).")],
    run_b: Annotated[str, typer.Argument(help="The later run.")],
    data_dir: DataDir = None,
) -> None:
    """What changed from RUN_A to RUN_B: paired / new / retired tests, verdicts, statements, labels.

    Verdict changes are listed pass -> fail first. Two runs of one suite pair their tests by id; two suites generated on different nights pair
    tests with the same kind, instruction and expected side whose statements match by embedding
    (docs/suites.md)."""
    from adat.reporting import run_diff

    check_run_id(run_a, field="RUN_A")
    check_run_id(run_b, field="RUN_B")
    d = run_diff(_root(data_dir), run_a, run_b)
    _tests(d.tests)
    changed = d.verdict_changes
    console.print(Text(f"verdict changes {run_a} -> {run_b}: {len(changed)} "
                       f"({len(d.pass_to_fail)} pass -> fail) of {len(d.judged_in_both)} tests judged in both "
                       "(per agent variant)", style="bold"))
    for r in changed:
        line = Text(f"  {r['change']:<24} ", style="bold red" if r["change"] == "pass -> fail" else "bold")
        line.append(f"{r['test_id']} ({r['kind']}, {r['agent_variant']}) ")
        console.print(line.append(str(r["goal"] or "")[:160], style="dim"))
    only = [r for r in d.verdicts if not (r["verdict_a"] and r["verdict_b"])]
    if only:
        console.print(f"  judged in one run only: {len(only)}", markup=False)
    s = d.statements
    if not s.compared:
        console.print(f"statements: not compared ({run_a}: {len(s.vanished)}, {run_b}: {len(s.appeared)} grounded; "
                      "a run_suite run extracts none)", markup=False)
    else:
        _statements(s)
    labels = d.label_changes
    console.print(Text(f"execution label changes: {len(labels)} of "
                       f"{sum(1 for r in d.labels if r['label_a'] and r['label_b'])} labelled in both", style="bold"))
    for r in labels:
        console.print(f"  {r['label_a']} -> {r['label_b']}  {r['test_id']} ({r['agent_variant']})", markup=False)


def _tests(t: Any) -> None:
    if t is None or t.same_ids and not t.new and not t.retired:
        return
    share = f" ({t.paired_share:.0%} of {t.run_b}'s {t.tests_b})" if t.paired_share is not None else ""
    console.print(Text(f"tests: {len(t.paired)} paired{share}, {len(t.new)} new, {len(t.retired)} retired",
                       style="bold"))
    for mark, style, rows in (("  + new     ", "green", t.new), ("  - retired ", "red", t.retired)):
        for row in rows:
            console.print(Text(mark, style=style) + Text(f"{row['test_id']} ({row['kind']}) {row['goal'] or ''}"[:200]))


def _statements(s: Any) -> None:
    console.print(Text(f"statements: {len(s.appeared)} appeared, {len(s.vanished)} vanished, "
                       f"{len(s.changed)} changed, {s.unchanged} unchanged", style="bold"))
    for mark, style, rows in (("  + ", "green", s.appeared), ("  - ", "red", s.vanished)):
        for row in rows:
            console.print(Text(mark, style=style) + Text(row["text"]))
    for before, after, cosine in s.changed:
        console.print(Text(f"  ~ ({cosine:.2f}) ", style="yellow") + Text(before["text"]) + Text(" => ") + Text(after["text"]))


def show(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="A test id (te-…) or an execution id (ex-…).")],
    run: Annotated[str | None, typer.Option("--run", help="The run to look in (default: the newest that has ID).")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="A test's executions on this variant; 'all' for every "
                                                "one (default: the variant the run executed).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Show one test or execution: goal, steps, criteria, transcript, verdict and rationale, audit label."""
    from adat.reporting.show import show_item

    if not item_id.strip():
        fail("empty id", field="ID", fix="pass a test id (te-…) or an execution id (ex-…)")
    show_item(console, _root(data_dir), item_id.strip(), run, variant)


def serve_reports(
    data_dir: DataDir = None,
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8790,
) -> None:
    """Serve DATA_DIR/reports over HTTP, so report links open from the Prefect UI.

    /RUN/report.html is a run's report, / lists them; set nightly.reports_url to the URL it prints."""
    from adat.reporting.report_server import serve_reports as serve

    root = warehouse_root(data_dir)
    console.print(f"reports of {root}: http://{host}:{port}/  (nightly.reports_url: http://{host}:{port})", markup=False)
    serve(root, host, port)
