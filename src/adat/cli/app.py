"""Typer application object whose errors a user caused are one line, exit code 2."""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.console import Console

from adat.errors import UserError

err_console = Console(stderr=True, soft_wrap=True, highlight=False)


class AdatTyper(typer.Typer):
    """A Typer app that turns :class:`UserError` into one line on stderr and exit code 2."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except UserError as exc:
            err_console.print(f"error: {exc.one_line()}", markup=False)
            sys.exit(2)


def fail(message: str, *, file: str | None = None, field: str | None = None, fix: str | None = None) -> None:
    """Raise a one-line user error from a command."""
    raise UserError(message, file=file, field=field, fix=fix)
