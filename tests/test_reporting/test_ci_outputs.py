"""End to end on the nightly warehouse (conftest): JUnit against an XSD, `adat diff` of a suite run on
the original and on a fault, `run-suite --fail-on`, and `adat show`."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adat.cli.main import app
from adat.errors import UserError
from adat.warehouse import read_records
from tests.test_reporting.conftest import Nightly

pytestmark = pytest.mark.slow

XSD = Path(__file__).resolve().parents[1] / "junit.xsd"


def _verdicts(root: Path, run_id: str) -> dict[str, str]:
    """test id -> verdict, read from the Parquet records (not from SQL), of a run-suite run (one variant)."""
    executions = {e.execution_id: e for e in read_records(root, "executions", run_id=run_id)}
    assert len({e.agent_variant for e in executions.values()}) == 1
    return {v.test_id: v.verdict for v in read_records(root, "verdicts", run_id=run_id)}


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_junit_export_validates_against_the_schema_and_carries_failures(nightly: Nightly, tmp_path: Path) -> None:
    import xmlschema

    out = tmp_path / "junit.xml"
    code, text = _cli("export", "junit", "rep-fault", "--out", str(out), "--data-dir", str(nightly.root))
    assert code == 0, text
    xmlschema.XMLSchema(str(XSD)).validate(str(out))
    verdicts = _verdicts(nightly.root, "rep-fault")
    goals = {t.test_id: t.goal for t in read_records(nightly.root, "tests", run_id="rep-fault")}
    invalid = {a.test_id for a in read_records(nightly.root, "audit_labels", run_id="rep-cur") if a.validity == "invalid"}
    cases = {c.get("name", "").rsplit(" [", 1)[-1].rstrip("]"): c for c in ET.parse(out).getroot().iter("testcase")}
    assert set(cases) == set(verdicts)  # one testcase per test, named "<goal, cut> [<test id>]"
    for test_id, case in cases.items():
        assert case.get("name", "").startswith(" ".join(goals[test_id].split())[:40])
        assert case.get("classname") in {"adat.rep-cur.plain", "adat.rep-cur.transformed"}  # the suite, not the run
    failed = {t for t, v in verdicts.items() if v == "fail"}
    assert failed - invalid, "the fault should fail some valid test"
    # a failure is what the gate (--fail-on fail) counts: failing tests the auditor judged invalid are apart
    assert {t for t, c in cases.items() if c.find("failure") is not None} == failed - invalid
    assert {t for t, c in cases.items() if c.find("skipped") is not None} == {
        t for t, v in verdicts.items() if v == "inconclusive"} | (failed & invalid)
    for t in failed & invalid:
        skipped = cases[t].find("skipped")
        assert skipped is not None and "auditor judged the test invalid" in skipped.get("message", "")
    body = cases[sorted(failed - invalid)[0]].find("failure")
    assert body is not None and body.text and "judge: " in body.text
    assert "user: " in body.text and "agent: " in body.text  # the transcript


def test_diff_lists_the_pass_to_fail_tests_first(nightly: Nightly) -> None:
    before, after = _verdicts(nightly.root, "rep-same"), _verdicts(nightly.root, "rep-fault")
    expected = sorted(t for t in before if before[t] == "pass" and after.get(t) == "fail")
    assert expected, "the fault should turn a passing test into a failing one"
    code, text = _cli("diff", "rep-same", "rep-fault", "--data-dir", str(nightly.root))
    assert code == 0, text
    lines = [line.split() for line in text.splitlines() if line.startswith("  ") and " -> " in line]
    listed = [parts[3] for parts in lines if parts[:3] == ["pass", "->", "fail"]]
    assert sorted(listed) == expected
    first_other = next((i for i, parts in enumerate(lines) if parts[:3] != ["pass", "->", "fail"]), len(lines))
    assert first_other == len(listed)  # pass -> fail before every other change
    assert f"({len(expected)} pass -> fail)" in text
    assert "statements: not compared" in text  # run_suite runs extract no statements


def test_diff_of_two_pipeline_runs_compares_statements(nightly: Nightly) -> None:
    code, text = _cli("diff", "rep-prev", "rep-cur", "--data-dir", str(nightly.root))
    assert code == 0, text
    assert "appeared" in text and "vanished" in text and "unchanged" in text


def test_run_suite_fail_on_regression_sets_the_exit_code(nightly: Nightly) -> None:
    assert nightly.fault_exit == 1, nightly.fault_output
    assert "--fail-on regression:" in nightly.fault_output and "pass -> fail" in nightly.fault_output
    assert nightly.same_exit == 0, nightly.same_output  # the unchanged agent regresses nothing


def test_show_prints_a_failing_execution_readably(nightly: Nightly) -> None:
    executions = {e.execution_id: e for e in read_records(nightly.root, "executions", run_id="rep-fault")}
    failing = next(v for v in read_records(nightly.root, "verdicts", run_id="rep-fault") if v.verdict == "fail")
    test = next(t for t in read_records(nightly.root, "tests", run_id="rep-fault") if t.test_id == failing.test_id)
    code, text = _cli("show", failing.execution_id, "--data-dir", str(nightly.root))
    assert code == 0, text
    assert test.goal in text and failing.rationale in text and "FAIL" in text
    for step in test.step_hints:
        assert step in text
    for turn in executions[failing.execution_id].turns:
        assert turn.text in text
    assert "audit: " in text


def test_show_and_diff_name_the_field_on_a_bad_id(nightly: Nightly) -> None:
    # CliRunner bypasses AdatTyper.__call__ (which prints the line and exits 2): the UserError surfaces
    for args, field in ((["show", "te-nope"], "ID"), (["diff", "rep-cur", "nope"], "RUN_B"),
                        (["report", "nope"], "RUN"), (["export", "junit", "nope"], "RUN")):
        result = CliRunner().invoke(app, [*args, "--data-dir", str(nightly.root)])
        assert isinstance(result.exception, UserError), (args, result.output)
        assert str(result.exception).startswith(f"{field}: "), str(result.exception)
