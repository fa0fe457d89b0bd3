"""Typer application object whose errors a user caused are one line, exit code 2."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from adat.config import RunConfig, load_run_config
from adat.engine.config_checks import check_config_references, check_roles_named
from adat.errors import StageFailed, UserError

#: Width rich renders at when stdout is not a terminal: wide enough that no path, command or
#: table row a user copies from a log or a pipe is ever split (rich would default to 80).
PIPE_WIDTH = 10_000


def terminal_console(*, stderr: bool = False) -> Console:
    """A console that wraps to the terminal when there is one and never wraps otherwise."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else PIPE_WIDTH
    return Console(stderr=stderr, highlight=False, soft_wrap=width is not None, width=width)


err_console = terminal_console(stderr=True)

#: ``--data-dir`` of a command that loads a run config, and of one that reads a warehouse only
ConfigDataDir = Annotated[Path | None, typer.Option("--data-dir",
                                                    help="Warehouse root (default: the config's data_dir).")]
DataDir = Annotated[Path | None, typer.Option("--data-dir", help="Warehouse root (default: ./data).")]


#: the ``adat`` process's own state: whether it runs as the command (not under a test runner) and its exit code
_PROCESS: dict[str, Any] = {"command": False, "code": None}


class AdatTyper(typer.Typer):
    """A Typer app that turns :class:`UserError` into one line per error on stderr and exit code 2."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not _PROCESS["command"]:  # the outermost app of the adat process (a sub-app never gets here)
            from adat import interrupts

            interrupts.install()
        _PROCESS["command"] = True
        try:
            result = self._call(*args, **kwargs)
        except SystemExit as exc:
            _PROCESS["code"] = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            raise
        _PROCESS["code"] = 0
        return result

    def _call(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except UserError as exc:
            for line in exc.lines():
                err_console.print(f"error: {line}", markup=False)
            sys.exit(2)
        except StageFailed as exc:  # the run is marked failed with this line; no traceback
            err_console.print(f"error: run failed: {exc}", markup=False)
            sys.exit(1)


def skip_teardown_at_exit() -> None:
    """Let an ``adat`` command that ran a flow end right after every exit handler has run.

    Call it before Prefect is imported: handlers registered later (Prefect's log and event
    drains, the process pools') run before this one. The interpreter's teardown that follows
    frees every object of the ~3,000 modules a flow loads, one by one (about a second here), for
    a process that ends anyway; nothing is left to write: Parquet parts and the catalog are
    closed when written. Only in the ``adat`` process itself (never under a test runner), only
    after a normal exit or ``sys.exit`` (an uncaught exception keeps the normal path), and not
    when ``multiprocessing``'s own exit handler is already registered (it would run after this one).
    """
    if not _PROCESS["command"] or "multiprocessing.util" in sys.modules:
        return
    import atexit

    atexit.register(_end_now)


def _end_now() -> None:
    code = _PROCESS["code"]
    if code is None:
        return
    import contextlib
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing left to flush into
            stream.flush()
    os._exit(code)


def sweep_abandoned(root: Path) -> list[str]:
    """Mark the runs of data dir ``root`` whose process is gone ``abandoned`` (one stderr line
    each); every command that opens a data dir calls it first (:func:`adat.engine.run_claims.mark_abandoned`)."""
    from adat.engine.run_claims import mark_abandoned

    marked = mark_abandoned(root)
    for run_id in marked:
        err_console.print(f"note: run {run_id} was still marked running but its process is gone: marked abandoned",
                          markup=False)
    return marked


def fail(message: str, *, file: str | None = None, field: str | None = None,
         fix: str | None = None) -> NoReturn:
    """Raise a one-line user error from a command."""
    raise UserError(message, file=file, field=field, fix=fix)


def warehouse_root(data_dir: Path | None) -> Path:
    """The warehouse a read command reads (``--data-dir`` or the default ``data_dir``); it must exist.

    Read commands never create it: a mistyped ``--data-dir`` is an error, not an empty warehouse.
    """
    root = (data_dir or RunConfig().data_path()).resolve()
    check_data_dir_option(root)
    if not root.is_dir():
        raise UserError(f"no warehouse directory {root}", field="--data-dir",
                        fix="pass the data_dir of an earlier run (adat run / adat demo write one)")
    sweep_abandoned(root)
    return root


def check_out_file(path: Path | None, field: str = "--out", *, make_parents: bool = False) -> None:
    """Refuse an output file the command could not write, before any work starts: a directory, a
    missing parent directory (unless the command creates it: ``make_parents``) or a directory
    adat may not write in."""
    if path is None:
        return
    import os

    if path.is_dir():
        fail(f"{path} is a directory", field=field, fix="name a file, e.g. DIR/report.html")
    parent = path.resolve().parent
    if not make_parents and not parent.is_dir():
        fail(f"no directory {parent}", field=field, fix="create it first or name a file in an existing directory")
    existing = next(p for p in (parent, *parent.parents) if p.exists())
    if not existing.is_dir():
        fail(f"{existing} is a file, not a directory", field=field, fix="name a file in a directory")
    if not _writable(existing) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"cannot write in {existing}", field=field, fix="name a file in a directory you may write to")


def _writable(directory: Path) -> bool:
    """Whether a file can be created in ``directory``: the mode bits, then a real try (root passes
    any mode check; a read-only mount or /proc does not), with an unnamed temporary file that
    leaves no entry behind (O_TMPFILE)."""
    import os
    import tempfile

    if not os.access(directory, os.W_OK | os.X_OK):
        return False
    try:
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def check_data_dir_option(data_dir: Path | None, field: str = "--data-dir") -> None:
    """A ``--data-dir`` may be missing (a run creates it) but never a file."""
    if data_dir is not None and data_dir.exists() and not data_dir.is_dir():
        fail(f"{data_dir} is a file, not a directory", field=field,
             fix="pass a directory (a run creates it when missing)")


def command_config(config: Path, data_dir: Path | None, command: str,
                   selectors: list[str] | None = None) -> RunConfig:
    """The run config of ``command``: loaded, ``--data-dir`` applied, its references and the roles
    ``command`` uses (with ``selectors``: theirs too) checked."""
    check_data_dir_option(data_dir)
    cfg = load_run_config(config)
    cfg = cfg.model_copy(update={"data_dir": str(data_dir.resolve())}) if data_dir else cfg
    check_config_references(cfg, file=str(config))
    check_roles_named(cfg, command, file=str(config), selectors=selectors)
    return cfg
