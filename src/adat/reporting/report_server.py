"""Serve ``<data_dir>/reports`` over HTTP, so a report link in the Prefect UI opens (a browser
refuses ``file://`` links from an ``http://`` page).

A Starlette app with ``StaticFiles`` (installed with Prefect, as is uvicorn): ``/<run id>/report.html``
is the report ``adat report RUN`` or the nightly flow wrote, ``/`` lists the runs that have one.
``adat serve-reports`` runs it in the foreground; ``python -m flows.nightly`` runs it in a thread
next to the deployment it serves and links each night's report through it.
"""

from __future__ import annotations

import contextlib
import html
from pathlib import Path
from typing import Any

REPORTS_DIR = "reports"


def report_url(base_url: str, data_root: Path, report: str | Path) -> str:
    """The URL of ``report`` (a file under ``<data_root>/reports``) on the server at ``base_url``."""
    relative = Path(report).resolve().relative_to((Path(data_root) / REPORTS_DIR).resolve())
    return f"{base_url.rstrip('/')}/{relative.as_posix()}"


def reports_app(data_root: Path) -> Any:
    """The ASGI app serving ``<data_root>/reports`` (created when missing)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    reports = Path(data_root) / REPORTS_DIR
    reports.mkdir(parents=True, exist_ok=True)

    def index(_request: Request) -> HTMLResponse:
        runs = sorted((p.parent.name for p in reports.glob("*/report.html")), reverse=True)
        items = "".join(f'<li><a href="{html.escape(r)}/report.html">{html.escape(r)}</a></li>' for r in runs)
        return HTMLResponse(f"<!doctype html><title>adat reports</title><h1>adat reports</h1><ul>{items}</ul>")

    return Starlette(routes=[Route("/", index), Mount("/", StaticFiles(directory=reports, html=True))])


def serve_reports(data_root: Path, host: str = "127.0.0.1", port: int = 8790) -> None:
    """Serve the reports until interrupted (``adat serve-reports``); a port in use is a UserError."""
    from adat.serving import BackgroundServer

    with contextlib.suppress(KeyboardInterrupt):  # uvicorn shuts down on Ctrl-C, then re-raises it
        BackgroundServer(reports_app(data_root), host, port, name="adat-reports").run()


def start_report_server(data_root: Path, host: str = "127.0.0.1", port: int = 0) -> tuple[str, Any]:
    """Serve the reports from a daemon thread (port 0: a free one); the base URL and the
    :class:`adat.serving.BackgroundServer` (``stop()`` stops it)."""
    from adat.serving import BackgroundServer

    server = BackgroundServer(reports_app(data_root), host, port, name="adat-reports")
    server.start_in_thread()
    return server.url, server
