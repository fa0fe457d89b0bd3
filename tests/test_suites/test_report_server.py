"""`adat serve-reports` / the nightly's report server: a run's report over HTTP, and its URL."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from adat.reporting.report_server import report_url, start_report_server


def test_the_report_opens_over_http_at_the_url_the_night_links(tmp_path: Path) -> None:
    report = tmp_path / "reports" / "nightly-20261203-0200" / "report.html"
    report.parent.mkdir(parents=True)
    report.write_text("<html>night</html>", encoding="utf-8")
    base, server = start_report_server(tmp_path)
    try:
        url = report_url(base, tmp_path, report)
        assert url == f"{base}/nightly-20261203-0200/report.html" and url.startswith("http://127.0.0.1:")
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and page.text == "<html>night</html>"
        assert "nightly-20261203-0200/report.html" in httpx.get(f"{base}/", timeout=10).text
        assert httpx.get(f"{base}/nope/report.html", timeout=10).status_code == 404
    finally:
        server.stop()


def test_a_report_outside_the_reports_directory_has_no_url(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        report_url("http://h:1", tmp_path, tmp_path / "elsewhere.html")


def test_the_nightly_links_to_reports_url_from_its_config_and_to_the_file_without_it(tmp_path: Path) -> None:
    from adat.config import RunConfig
    from flows.nightly import _report_link

    report = tmp_path / "reports" / "night-1" / "report.html"
    served = RunConfig.model_validate({"nightly": {"reports_url": "http://reports.example:8790"}})
    assert _report_link(served.nightly.reports_url, tmp_path, str(report)) == \
        report_url("http://reports.example:8790", tmp_path, str(report))
    assert _report_link(served.nightly.reports_url, tmp_path, str(report)).startswith("http://reports.example:8790/")
    assert _report_link(RunConfig().nightly.reports_url, tmp_path, str(report)) == str(report)  # unserved: the file
