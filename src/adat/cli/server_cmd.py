"""``adat server start | stop | status``: one Prefect server in the background that every flow command reuses.

Registered on the main app in :mod:`adat.cli.main`; the server itself is :mod:`adat.prefect_server`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from adat.cli.app import AdatTyper, terminal_console
from adat.config import RunConfig, user_prefect_api_url

console = terminal_console()
server_app = AdatTyper(help="A Prefect server in the background (UI, run history) that every adat command "
                       "that runs a flow reuses, instead of a temporary server per command.",
                       no_args_is_help=True)

DataDir = Annotated[Path | None, typer.Option(
    "--data-dir", help="Warehouse root whose server to manage (default: data_dir's default, ./data).")]


def _data_dir(data_dir: Path | None) -> Path:
    return data_dir.resolve() if data_dir else RunConfig().data_path()


@server_app.command("start")
def start(
    port: Annotated[int | None, typer.Option(
        "--port", help="TCP port on 127.0.0.1 (default 4200, or a free one when 4200 is taken).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Start Prefect's server on 127.0.0.1 (database and log under DATA_DIR/prefect); reuse a running one."""
    from adat.prefect_server import start_server

    state, started = start_server(_data_dir(data_dir), port)
    verb = "started" if started else "already running"
    console.print(f"adat server: {verb} at {state.ui_url} (pid {state.pid}); API {state.api_url}, "
                  f"log {state.log}", markup=False)
    console.print(f"every adat command with this data dir now runs its flows there; "
                  f"other Prefect programs: export PREFECT_API_URL={state.api_url}", markup=False)


@server_app.command("stop")
def stop(data_dir: DataDir = None) -> None:
    """Stop the server `adat server start` started for the data dir (its database stays)."""
    from adat.prefect_server import stop_server

    state = stop_server(_data_dir(data_dir))
    if state is None:
        console.print("adat server: not running", markup=False)
    else:
        console.print(f"adat server: stopped (pid {state.pid}, {state.ui_url})", markup=False)


@server_app.command("status")
def status(data_dir: DataDir = None) -> None:
    """Print which Prefect server adat's flows use: URL, pid, health. Exit 0 when one answers, else 1."""
    from adat.prefect_server import is_healthy, read_state, running_server

    user_url = user_prefect_api_url()
    if user_url:
        health = "healthy" if is_healthy(user_url) else "NOT answering"
        console.print(f"adat server: PREFECT_API_URL={user_url} (set by you; adat starts no server), {health}",
                      markup=False)
        raise typer.Exit(0 if health == "healthy" else 1)
    root = _data_dir(data_dir)
    state = running_server(root)
    if state is not None:
        console.print(f"adat server: running at {state.ui_url} (pid {state.pid}, since {state.started_at}), "
                      f"healthy; API {state.api_url}, log {state.log}", markup=False)
        return
    stale = read_state(root)
    note = f" (pid {stale.pid} at {stale.ui_url} does not answer; `adat server stop` cleans up)" if stale else ""
    console.print(f"adat server: stopped{note}; flows start Prefect's temporary server per command", markup=False)
    raise typer.Exit(1)
