"""Run outputs beyond the CLI summary: the HTML report, JUnit XML, run diffs and ``adat show``.

Every figure comes from a query in ``sql/report`` or ``sql/metrics`` (:class:`ReportQueries`).
The HTML report is :mod:`adat.reporting.html_report`, imported only where a report is written:
it loads the plotting stack (matplotlib), which every flow command would otherwise pay for.
"""

from __future__ import annotations

from adat.reporting.run_diff import RunDiff, StatementDiff, match_statements, run_diff
from adat.warehouse.queries import ReportQueries

__all__ = ["ReportQueries", "RunDiff", "StatementDiff", "match_statements", "run_diff"]
