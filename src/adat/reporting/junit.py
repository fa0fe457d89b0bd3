"""``adat export junit RUN``: the run's verdicts as JUnit XML for CI dashboards.

One ``<testsuite>`` per agent variant exported (by default the one the run was started against:
``original``, or the fault of a run-suite on a faulty target), one ``<testcase>`` per
test (``sql/report/test_verdicts.sql``: the worst verdict of its executions). A *fail* is a
``<failure>`` whose text is the judge's rationale and the transcript; an execution that errored
(the target failed) is an ``<error>``; *inconclusive* has no JUnit equivalent and is a
``<skipped>`` with the rationale (the judge could not decide either way), its transcript in
``<system-out>``. ``tests/junit.xsd`` is the schema the output is validated against.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

from adat import redaction
from adat.errors import UserError
from adat.warehouse.queries import ReportQueries


def _transcript(turns: list[dict[str, Any]]) -> str:
    return "\n".join(f"{t['role']}: {t['text']}" for t in turns)


def _suite(run_id: str, variant: str, rows: list[dict[str, Any]], turns: dict[str, list[dict[str, Any]]]) -> ET.Element:
    counts = Counter("error" if r["error"] else r["verdict"] for r in rows)
    suite = ET.Element("testsuite", {
        "name": f"adat.{run_id}.{variant}",
        "tests": str(len(rows)),
        "failures": str(counts["fail"]),
        "errors": str(counts["error"]),
        "skipped": str(counts["inconclusive"]),
        "time": f"{sum(r['duration_s'] or 0.0 for r in rows):.3f}",
    })
    for r in rows:
        case = ET.SubElement(suite, "testcase", {
            "name": r["test_id"], "classname": f"adat.{run_id}.{r['kind']}", "time": f"{r['duration_s'] or 0.0:.3f}"})
        transcript = _transcript(turns.get(r["execution_id"], []))
        head = (r["rationale"] or "").strip().splitlines()
        if r["error"]:
            node = ET.SubElement(case, "error", {"message": str(r["error"])[:500], "type": "target-error"})
            node.text = f"{r['error']}\n\ngoal: {r['goal']}\n\n{transcript}"
        elif r["verdict"] == "fail":
            node = ET.SubElement(case, "failure", {"message": head[0][:500] if head else "fail", "type": "fail"})
            node.text = f"judge: {r['rationale']}\n\ngoal: {r['goal']}\nexecution: {r['execution_id']}\n\n{transcript}"
        elif r["verdict"] == "inconclusive":
            ET.SubElement(case, "skipped", {"message": f"inconclusive: {head[0] if head else ''}"[:500]})
            ET.SubElement(case, "system-out").text = f"goal: {r['goal']}\nexecution: {r['execution_id']}\n\n{transcript}"
    return suite


def junit_xml(queries: ReportQueries, run_id: str, variants: list[str] | None = None) -> str:
    """The JUnit XML document of ``run_id`` for ``variants`` (default: the original agent)."""
    if not queries.run_exists(run_id):
        raise UserError(f"run {run_id!r} has no tests or executions in {queries.data_root}", field="RUN",
                        fix="pass a run id from `adat sql stg_runs`, or --data-dir of its warehouse")
    rows = queries.rows("test_verdicts", run_id=run_id)
    overview = queries.rows("run_overview", run_id=run_id)
    wanted = variants or [(overview[0]["agent_variant"] if overview else None) or "original"]
    known = sorted({r["agent_variant"] for r in rows})
    unknown = [v for v in wanted if v not in known]
    if unknown:
        raise UserError(f"run {run_id!r} has no judged executions on {', '.join(unknown)}", field="--variant",
                        fix=f"use one of: {', '.join(known) or 'none (nothing judged yet)'}")
    non_passing = [r["execution_id"] for r in rows if r["agent_variant"] in wanted and r["verdict"] != "pass"]
    turns: dict[str, list[dict[str, Any]]] = {}
    if non_passing:
        for t in queries.rows("execution_transcripts", run_id=run_id, execution_ids=non_passing):
            turns.setdefault(t["execution_id"], []).append(t)
    root = ET.Element("testsuites", {"name": f"adat {run_id}"})
    for variant in wanted:
        root.append(_suite(run_id, variant, [r for r in rows if r["agent_variant"] == variant], turns))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(data_root: Path, run_id: str, out: Path, variants: list[str] | None = None) -> Path:
    """Write :func:`junit_xml` to ``out`` atomically; returns ``out``."""
    text = junit_xml(ReportQueries(data_root), run_id, variants)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(redaction.scrub(text), encoding="utf-8")  # secrets never stored (adat.redaction)
    tmp.replace(out)
    return out
