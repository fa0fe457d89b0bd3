"""Typer application object whose errors a user caused are one line, exit code 2."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from adat.config import RunConfig
from adat.errors import UserError

#: Width rich renders at when stdout is not a terminal: wide enough that no path, command or
#: table row a user copies from a log or a pipe is ever split (rich would default to 80).
PIPE_WIDTH = 10_000


def terminal_console(*, stderr: bool = False) -> Console:
    """A console that wraps to the terminal when there is one and never wraps otherwise."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else PIPE_WIDTH
    return Console(stderr=stderr, highlight=False, soft_wrap=width is not None, width=width)


err_console = terminal_console(stderr=True)


class AdatTyper(typer.Typer):
    """A Typer app that turns :class:`UserError` into one line per error on stderr and exit code 2."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except UserError as exc:
            for line in exc.lines():
                err_console.print(f"error: {line}", markup=False)
            sys.exit(2)


def fail(message: str, *, file: str | None = None, field: str | None = None, fix: str | None = None) -> None:
    """Raise a one-line user error from a command."""
    raise UserError(message, file=file, field=field, fix=fix)


def warehouse_root(data_dir: Path | None) -> Path:
    """The warehouse a read command reads (``--data-dir`` or the default ``data_dir``); it must exist.

    Read commands never create it: a mistyped ``--data-dir`` is an error, not an empty warehouse.
    """
    root = (data_dir or RunConfig().data_path()).resolve()
    if not root.is_dir():
        raise UserError(f"no warehouse directory {root}", field="--data-dir",
                        fix="pass the data_dir of an earlier run (adat run / adat demo write one)")
    return root
