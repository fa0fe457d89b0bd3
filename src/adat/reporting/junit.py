"""``adat export junit RUN`` and ``run-suite --junit FILE``: the run's verdicts as JUnit XML for CI viewers.

One ``<testsuite>`` per agent variant exported (by default the one the run was started against:
``original``, or the fault of a run-suite on a faulty target), one ``<testcase>`` per test:

* ``name`` is the test's goal cut to :data:`adat.reporting.gate.GOAL_CHARS` characters with the
  test id as a suffix (``Cancel a pending order … [te-1a2b]``), so a CI viewer's list reads and
  its history follows one test across builds; ``classname`` is ``adat.<suite>.<kind>`` — the
  suite's run id, never this run's, so every build of the same suite has the same test names;
* ``<properties>``: suite, run, variant, repeat (trials per test) and offline (``true`` when a
  role was played by the ``offline/heuristic`` stand-in, whose verdicts are no model's);
* on the run's own variant a ``<failure>`` is exactly a test that fails the gate
  (:mod:`adat.reporting.gate`, mode ``fail`` unless told): the JUnit failure count is the gate's.
  A failing test the gate does not count (auditor judged it invalid, already failing in the
  suite, within its history) is ``<skipped>`` with that reason; a target error is an ``<error>``;
  *inconclusive* has no JUnit equivalent and is ``<skipped>``. Other variants (an evaluation's
  faults) have no gate: every test judged fail is a ``<failure>``.

Failures carry the judge's rationale and the transcript. ``tests/junit.xsd`` is the schema the
output is validated against.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

from adat import redaction
from adat.errors import UserError
from adat.reporting.gate import evaluate_gate, short_goal
from adat.warehouse.queries import ReportQueries


def _transcript(turns: list[dict[str, Any]]) -> str:
    return "\n".join(f"{t['role']}: {t['text']}" for t in turns)


def case_name(row: dict[str, Any]) -> str:
    """A readable, stable test name: the goal, cut, with the test id as a suffix."""
    goal = short_goal(row.get("goal"))
    return f"{goal} [{row['test_id']}]" if goal else str(row["test_id"])


def _outcome(row: dict[str, Any], gated: bool) -> str:
    """failure | error | skipped | pass for one test row."""
    if gated:
        if row["counted"]:
            return "failure"
        if row["error"]:
            return "error"
        return "skipped" if row["verdict"] != "pass" else "pass"
    if row["error"]:
        return "error"
    return {"fail": "failure", "inconclusive": "skipped"}.get(row["verdict"], "pass")


def _case(suite: ET.Element, row: dict[str, Any], suite_id: str, outcome: str, transcript: str, gated: bool) -> None:
    case = ET.SubElement(suite, "testcase", {
        "name": case_name(row), "classname": f"adat.{suite_id}.{row['kind']}",
        "time": f"{row['duration_s'] or 0.0:.3f}"})
    head = (row["rationale"] or "").strip().splitlines()
    trials = f"trials: {row['passes']}/{row['k']} pass ({row['flake_class']})\n" if gated else ""
    detail = (f"{trials}goal: {row['goal']}\ntest: {row['test_id']}\nexecution: {row['execution_id']}\n"
              + (f"audit: {row['validity']}\n" if gated else "") + f"\n{transcript}")
    if outcome == "failure":
        message = row["reason"] if gated else (head[0] if head else "fail")
        node = ET.SubElement(case, "failure", {"message": str(message)[:500], "type": "fail"})
        node.text = f"judge: {row['rationale']}\n{detail}"
    elif outcome == "error":
        node = ET.SubElement(case, "error", {"message": str(row["error"])[:500], "type": "target-error"})
        node.text = f"{row['error']}\n\n{detail}"
    elif outcome == "skipped":
        reason = (f"{row['verdict']}, not counted: {row['reason']}" if gated and row["reason"]
                  else f"inconclusive: {head[0] if head else ''}")
        ET.SubElement(case, "skipped", {"message": reason[:500]})
        ET.SubElement(case, "system-out").text = f"judge: {row['rationale']}\n{detail}"


def _suite(context: dict[str, Any], suite_id: str, variant: str, rows: list[dict[str, Any]],
           turns: dict[str, list[dict[str, Any]]], gated: bool) -> ET.Element:
    outcomes = [_outcome(r, gated) for r in rows]
    counts = Counter(outcomes)
    suite = ET.Element("testsuite", {
        "name": f"adat.{suite_id}.{variant}", "tests": str(len(rows)), "failures": str(counts["failure"]),
        "errors": str(counts["error"]), "skipped": str(counts["skipped"]),
        "time": f"{sum(r['duration_s'] or 0.0 for r in rows):.3f}",
    })
    properties = ET.SubElement(suite, "properties")
    for name, value in (("suite", suite_id), ("run", context["run_id"]), ("variant", variant),
                        ("repeat", str(context["repeat"])), ("offline", str(bool(context["offline"])).lower())):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    for row, outcome in zip(rows, outcomes, strict=True):
        _case(suite, row, suite_id, outcome, _transcript(turns.get(row["execution_id"], [])), gated)
    return suite


def write_junit(data_root: Path, run_id: str, out: Path, variants: list[str] | None = None, *,
                suite_run_id: str | None = None, mode: str = "fail") -> Path:
    """Write the JUnit XML document of ``run_id`` for ``variants`` (default: the variant the run
    targeted) to ``out`` atomically, failures decided by the gate ``mode`` against ``suite_run_id``
    (default: the run's suite); returns ``out``."""
    queries = ReportQueries(data_root)
    if not queries.run_exists(run_id):
        raise UserError(f"run {run_id!r} has no tests or executions in {queries.data_root}", field="RUN",
                        fix="pass a run id from `adat sql stg_runs`, or --data-dir of its warehouse")
    context = queries.rows("run_suite_context", run_id=run_id)[0]
    suite_id = suite_run_id or context["suite_run_id"]
    own = context["agent_variant"] or "original"
    rows = queries.rows("test_verdicts", run_id=run_id)
    wanted = variants or [own]
    known = sorted({r["agent_variant"] for r in rows})
    unknown = [v for v in wanted if v not in known]
    if unknown:
        raise UserError(f"run {run_id!r} has no judged executions on {', '.join(unknown)}", field="--variant",
                        fix=f"use one of: {', '.join(known) or 'none (nothing judged yet)'}")
    per_variant = {v: (evaluate_gate(queries.data_root, run_id, suite_id, mode, queries).tests, True) if v == own
                   else ([r for r in rows if r["agent_variant"] == v], False) for v in wanted}
    non_passing = [r["execution_id"] for v_rows, _ in per_variant.values() for r in v_rows if r["verdict"] != "pass"]
    turns: dict[str, list[dict[str, Any]]] = {}
    if non_passing:
        for t in queries.rows("execution_transcripts", run_id=run_id, execution_ids=non_passing):
            turns.setdefault(t["execution_id"], []).append(t)
    root = ET.Element("testsuites", {"name": f"adat {suite_id}"})
    for variant, (v_rows, gated) in per_variant.items():
        root.append(_suite(context, suite_id, variant, v_rows, turns, gated))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(redaction.scrub(text), encoding="utf-8")  # secrets never stored (adat.redaction)
    tmp.replace(out)
    return out
