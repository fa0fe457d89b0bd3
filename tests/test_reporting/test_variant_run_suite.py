"""The CI case end to end (conftest's nightly warehouse): `rep-fault` is `adat run-suite` of rep-cur's
suite on the faulty variant SUITE_FAULT, and nobody audited it. Its HTML report (screenshot in
headless Chromium), `adat show`, `validity_rate` and `fault_detection` describe that variant and the
tests that went pass -> fail since the suite run; unaudited is "not audited", never 0."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adat.cli.main import app
from adat.warehouse.queries import ReportQueries
from tests.test_reporting.conftest import SUITE_FAULT, Nightly
from tests.test_reporting.test_html_report import WIDTH, _browser, _chromium

pytestmark = pytest.mark.slow

#: appended to a copy of the page: what a reader sees in the headline and the pass -> fail section
MEASURE = """<script>
const rows = (sel) => Array.from(document.querySelectorAll(sel + ' tr')).slice(1)
  .map(tr => Array.from(tr.querySelectorAll('td')).map(td => td.textContent.trim()));
const section = document.getElementById('pass-to-fail');
const box = (el) => { const r = el.getBoundingClientRect(); return {y: r.top + scrollY, h: r.height, w: r.width}; };
const out = document.createElement('pre'); out.id = 'adat-measure';
out.textContent = JSON.stringify({
  headline: rows('#headline-verdicts'), headline_box: box(document.getElementById('headline-verdicts')),
  agent: document.getElementById('headline-agent').textContent,
  pass_to_fail: section ? rows('#pass-to-fail + p + table') : null, section: section ? box(section) : null,
  failing: document.getElementById('failing').textContent,
  vc: Array.from(document.querySelectorAll('th')).filter(th => th.textContent.startsWith('V/C'))
        .map(th => th.nextElementSibling.textContent.trim()),
  height: document.documentElement.scrollHeight});
document.body.appendChild(out);
</script>"""


def _pass_to_fail(root: Path) -> list[str]:
    rows = ReportQueries(root).rows("verdict_changes", run_a="rep-cur", run_b="rep-fault")
    return sorted(r["test_id"] for r in rows if r["change"] == "pass -> fail" and r["variant_key"] == "(run target)")


def test_validity_of_the_unaudited_run_suite_run_is_null_and_its_suite_keeps_its_own(nightly: Nightly) -> None:
    queries = ReportQueries(nightly.root)
    rows = queries.rows("validity_rate", run_id="rep-fault")
    assert rows and all(r["audited"] == 0 and r["valid"] is None and r["validity_rate"] is None for r in rows)
    audited = next(r for r in queries.rows("validity_rate", run_id="rep-cur") if r["kind"] == "all")
    assert audited["audited"] > 0 and audited["validity_rate"] is not None
    result = CliRunner().invoke(app, ["sql", "validity_rate", "--run", "rep-fault", "--format", "csv",
                                      "--data-dir", str(nightly.root)])
    assert result.exit_code == 0, result.output
    assert "0.0" not in result.output


def test_fault_detection_of_the_run_suite_run_is_its_pass_to_fail_tests(nightly: Nightly) -> None:
    expected = _pass_to_fail(nightly.root)
    assert expected, "the fault should turn a passing test into a failing one"
    rows = ReportQueries(nightly.root).rows("fault_detection", run_id="rep-fault")
    assert len(rows) == 1
    row = rows[0]
    assert (row["fault"], row["base_run"], row["pass_to_fail"], row["detected"]) == (
        SUITE_FAULT, "rep-cur", len(expected), True)
    assert row["detecting_tests"] is None and row["audited_tests"] == 0
    assert row["evidence"] == "pass -> fail, not audited" and row["activated"] is None  # not measured here


def test_show_of_a_test_of_the_run_defaults_to_its_variant(nightly: Nightly) -> None:
    test_id = _pass_to_fail(nightly.root)[0]
    result = CliRunner().invoke(app, ["show", test_id, "--data-dir", str(nightly.root)])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "no executions on" not in text
    assert f" on {SUITE_FAULT} · FAIL" in text
    assert "suite run rep-cur: pass -> this run: fail" in text


def test_report_of_the_run_suite_run_in_headless_chromium(nightly: Nightly, tmp_path: Path) -> None:
    from PIL import Image, ImageStat

    result = CliRunner().invoke(app, ["report", "rep-fault", "--data-dir", str(nightly.root)])
    assert result.exit_code == 0, result.output
    report = nightly.root / "reports" / "rep-fault" / "report.html"
    html = report.read_text(encoding="utf-8")
    assert "on the original agent" not in html and "<script" not in html
    browser = _browser()
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = _chromium(browser, f"--window-size={WIDTH},1000", "--dump-dom", probe.as_uri()).stdout
    seen = json.loads(re.search(r'<pre id="adat-measure">(.*?)</pre>', dom, re.S).group(1).replace("&quot;", '"'))
    # the headline: verdicts on the fault the run executed, not an empty table of the original's
    assert f"faulty variant {SUITE_FAULT}" in seen["agent"]
    assert seen["headline"] and all(r[1] == SUITE_FAULT for r in seen["headline"]), seen["headline"]
    assert sum(int(r[3]) for r in seen["headline"]) > 0  # failures counted
    assert seen["vc"] and all(v.startswith("not audited") for v in seen["vc"]), seen["vc"]
    assert f"on faulty variant {SUITE_FAULT}" in seen["failing"]
    # the pass -> fail section lists exactly the tests that passed in rep-cur and fail now
    assert seen["section"] and seen["section"]["h"] > 0
    assert sorted(r[0] for r in seen["pass_to_fail"]) == _pass_to_fail(nightly.root)
    height = min(int(seen["height"]) + 20, 16000)
    shot = tmp_path / "report.png"
    _chromium(browser, f"--window-size={WIDTH},{height}", f"--screenshot={shot}", report.as_uri())
    image = Image.open(shot).convert("L")
    assert image.size == (WIDTH, height)
    assert ImageStat.Stat(image).stddev[0] > 10, "the screenshot is blank"
    top = int(seen["headline_box"]["y"])
    table = image.crop((0, top, WIDTH, top + int(seen["headline_box"]["h"])))
    assert sum(1 for px in table.getdata() if px < 128) > 200, "the headline table is drawn empty"
    keep = os.environ.get("ADAT_VARIANT_REPORT_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
