"""Serve ``<data_dir>/reports`` over HTTP, so a report link in the Prefect UI opens (a browser
refuses ``file://`` links from an ``http://`` page).

A Starlette app with ``StaticFiles`` (installed with Prefect, as is uvicorn): ``/<run id>/report.html``
is the report ``adat report RUN`` or the nightly flow wrote, ``/`` lists the runs that have one.
``adat serve-reports`` runs it in the foreground; ``python -m flows.nightly`` runs it in a thread
next to the deployment it serves and links each night's report through it.
"""

from __future__ import annotations

import html
import socket
import threading
import time
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


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def serve_reports(data_root: Path, host: str = "127.0.0.1", port: int = 8790) -> None:
    """Serve the reports until interrupted (``adat serve-reports``)."""
    import uvicorn

    uvicorn.run(reports_app(data_root), host=host, port=port, log_level="warning")


def start_report_server(data_root: Path, host: str = "127.0.0.1", port: int = 0) -> tuple[str, Any]:
    """Serve the reports from a daemon thread (port 0: a free one); the base URL and the server
    (``server.should_exit = True`` stops it)."""
    import uvicorn

    port = port or free_port(host)
    server = uvicorn.Server(uvicorn.Config(reports_app(data_root), host=host, port=port, log_level="warning"))
    threading.Thread(target=server.run, name="adat-reports", daemon=True).start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    return f"http://{host}:{port}", server
