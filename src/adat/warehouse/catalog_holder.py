"""Who holds the catalog file read-write, said in one line.

DuckDB lets one process open a database file read-write, and then no other process may open it at
all (read-only opens included): an analyst who runs ``duckdb data/adat.duckdb`` without
``-readonly`` (or any program holding a write connection) blocks adat's reads of the catalog. adat
does not rebuild the file from under that session either (its write-ahead log, kept by path, would
be replayed onto the new file): every command that reads or builds the catalog stops first with
one line naming the process and the fix, exit 2 (:func:`check_catalog_free`).
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from adat.errors import UserError

__all__ = ["catalog_holder", "check_catalog_free"]

#: DuckDB's message: 'Could not set lock on file "…": Conflicting lock is held in /usr/bin/duckdb (PID 123)'
_HELD = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")


def catalog_holder(db: Path) -> str | None:
    """A description of the process holding ``db`` read-write ('PID 123, duckdb'),
    or None when the file is missing or free to read."""
    db = Path(db)
    if not db.is_file():
        return None
    try:
        duckdb.connect(str(db), read_only=True).close()
    except duckdb.IOException as exc:
        match = _HELD.search(str(exc))
        if match is None:  # not a lock: the caller meets the error itself
            return "another process" if "lock" in str(exc).lower() else None
        return f"PID {match['pid']}, {_program(int(match['pid'])) or Path(match['program']).name}"
    except duckdb.Error:
        return None
    return None


def check_catalog_free(db: Path) -> None:
    """Raise a one-line :class:`UserError` when another process holds the catalog ``db`` read-write."""
    holder = catalog_holder(db)
    if holder is not None:
        raise UserError(f"the catalog is open read-write in another process ({holder[:80]}), "
                        "so nothing can read or rebuild it", file=str(db),
                        fix=f"quit that session, and open the catalog read-only: duckdb -readonly {db}")


def _program(pid: int) -> str:
    """The program name of process ``pid`` (Linux ``/proc``: what the user started, not the
    interpreter's path), '' when unknown."""
    try:
        argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return ""
    return Path(argv0).name
