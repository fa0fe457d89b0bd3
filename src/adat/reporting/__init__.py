"""Run outputs beyond the CLI summary: the HTML report, JUnit XML, run diffs and ``adat show``.

Every figure comes from a query in ``sql/report`` or ``sql/metrics`` (:class:`ReportQueries`).
"""

from adat.reporting.html_report import render_report, report_context, report_path, write_report
from adat.reporting.run_diff import RunDiff, StatementDiff, match_statements, run_diff
from adat.warehouse.queries import ReportQueries

__all__ = [
    "ReportQueries",
    "RunDiff",
    "StatementDiff",
    "match_statements",
    "render_report",
    "report_context",
    "report_path",
    "run_diff",
    "write_report",
]
