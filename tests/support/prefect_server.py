"""A real Prefect server on 127.0.0.1 for one test, started the way ``adat server start`` starts it.

Usage::

    with running_prefect_server(tmp_path / "data") as server:
        server.api_url                 # http://127.0.0.1:<free port>/api
        # flows run in subprocesses with PREFECT_API_URL=server.api_url, or `adat ... --data-dir`

The server, its children and its state file are gone when the block exits, even on failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adat.prefect_server import ServerState, free_port, start_server, stop_server

__all__ = ["free_port", "running_prefect_server"]


@contextmanager
def running_prefect_server(data_dir: Path) -> Iterator[ServerState]:
    """Start a server for ``data_dir`` on a free port (``PREFECT_API_URL`` must not be set)."""
    try:
        state, _ = start_server(data_dir, free_port())
        yield state
    finally:
        stop_server(data_dir)
