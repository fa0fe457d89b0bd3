"""Run outputs beyond the CLI summary: the HTML report, JUnit XML, run diffs and ``adat show``.

Every figure comes from a query in ``sql/report`` or ``sql/metrics`` (:class:`ReportQueries`).
The HTML report's names load on first use (PEP 562): importing ``run_diff`` or ``night`` does
not load its plotting stack (matplotlib), which every flow command would otherwise pay for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from adat.reporting.run_diff import RunDiff, StatementDiff, match_statements, run_diff
from adat.warehouse.queries import ReportQueries

if TYPE_CHECKING:
    from adat.reporting.html_report import render_report, report_context, report_path, write_report

_LAZY = frozenset({"render_report", "report_context", "report_path", "write_report"})

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


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.html_report"), name)
