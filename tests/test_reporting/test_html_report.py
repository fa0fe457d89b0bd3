"""`adat report` of a demo-shaped run (conftest's nightly warehouse), rendered in headless Chromium:
the page is self-contained, the screenshot is not blank, and every plot is on it and not empty."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adat.cli.main import app
from adat.reporting.html_report import PLOTS
from tests.test_reporting.conftest import Nightly

pytestmark = pytest.mark.slow

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
WIDTH = 1280
#: appended to a copy of the page (the report itself has no script): each plot's box, after layout
MEASURE = """<script>
const boxes = {};
for (const f of document.querySelectorAll('figure.plot')) {
  const svg = f.querySelector('svg'); const r = (svg || f).getBoundingClientRect();
  boxes[f.id] = {svg: !!svg, x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height,
                 marks: svg ? svg.querySelectorAll('path, rect, line, polyline').length : 0};
}
const out = document.createElement('pre'); out.id = 'adat-measure';
out.textContent = JSON.stringify({height: document.documentElement.scrollHeight, boxes});
document.body.appendChild(out);
</script>"""


def _browser() -> str:
    found = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: .ci/run installs it (apt-get install chromium)")
        pytest.skip("no chromium on this machine (apt-get install chromium; .ci/run installs it)")
    return found


def _chromium(browser: str, *args: str) -> subprocess.CompletedProcess[str]:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
             "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage"]
    return subprocess.run([browser, *flags, *args], capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture(scope="module")
def report(nightly: Nightly) -> Path:
    result = CliRunner().invoke(app, ["report", "rep-cur", "--data-dir", str(nightly.root)])
    assert result.exit_code == 0, result.output
    path = nightly.root / "reports" / "rep-cur" / "report.html"
    assert str(path) in result.output
    return path


def test_report_is_self_contained(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "a resource is fetched at view time"
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html)


def test_report_lists_failures_with_transcripts_and_statement_changes(report: Path, nightly: Nightly) -> None:
    from adat.reporting import ReportQueries

    html = report.read_text(encoding="utf-8")
    failing = ReportQueries(nightly.root).rows("non_passing_executions", run_id="rep-cur")
    assert f"({len(failing)})" in html
    for row in failing:
        assert row["execution_id"] in html
    assert "Compared with <code>rep-prev</code>" in html


def test_report_renders_in_headless_chromium_with_every_plot(report: Path, tmp_path: Path) -> None:
    from PIL import Image, ImageStat

    browser = _browser()
    probe = tmp_path / "probe.html"
    probe.write_text(report.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = _chromium(browser, f"--window-size={WIDTH},1000", "--dump-dom", probe.as_uri()).stdout
    measured = json.loads(re.search(r'<pre id="adat-measure">(.*?)</pre>', dom, re.S).group(1).replace("&quot;", '"'))
    boxes = measured["boxes"]
    assert sorted(boxes) == sorted(f"plot-{key}" for key in PLOTS)
    height = min(int(measured["height"]) + 20, 16000)
    shot = tmp_path / "report.png"
    _chromium(browser, f"--window-size={WIDTH},{height}", f"--screenshot={shot}", report.as_uri())
    image = Image.open(shot).convert("L")
    assert image.size == (WIDTH, height)
    assert ImageStat.Stat(image).stddev[0] > 10, "the screenshot is blank"
    for key, box in boxes.items():
        assert box["svg"], f"{key}: no plot, only its 'missing' note"
        assert box["w"] > 200 and box["h"] > 80, f"{key}: rendered {box['w']}x{box['h']}"
        assert box["marks"] > 10, f"{key}: {box['marks']} drawn marks"
        crop = image.crop((int(box["x"]), int(box["y"]), int(box["x"] + box["w"]), int(box["y"] + box["h"])))
        inked = sum(1 for px in crop.getdata() if px < 200) / (crop.width * crop.height)
        assert inked > 0.01, f"{key}: {inked:.1%} of its area is drawn"
    keep = os.environ.get("ADAT_REPORT_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
