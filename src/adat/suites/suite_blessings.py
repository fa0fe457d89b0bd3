"""Blessed suites: a name -> the run whose tests are the frozen suite (table ``suite_blessings``).

``adat suite bless RUN --name NAME`` appends a :class:`~adat.records.SuiteBlessing` row to RUN's
partition (owner ``bless``; a blessing is never rewritten, the latest one of a name wins), so a
name can move to a newer suite and the history of which suite was blessed when stays queryable
(``adat sql blessed_suites``). The nightly flow runs the suite its config names
(``nightly.suite``); CI carries one with ``adat suite export`` / ``import`` (:mod:`adat.suites.bundle`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from adat.errors import UserError
from adat.records import SuiteBlessing, TestCase
from adat.warehouse.parquet import read_records, write_records

TABLE = "suite_blessings"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_name(name: str, field: str = "--name") -> str:
    """``name`` if it is a usable suite name (letters, digits, '.', '_', '-'), else a one-line UserError."""
    if not _NAME.fullmatch(name or ""):
        raise UserError(f"bad suite name {name!r}", field=field, fix="use letters, digits, '.', '_' or '-'")
    return name


def suite_tests(root: Path, run_id: str) -> list[TestCase]:
    """The tests of suite run ``run_id`` (a run-suite run's copy included)."""
    return cast(list[TestCase], read_records(root, "tests", run_id=run_id))


def bless(root: Path, run_id: str, name: str, source: str = "bless") -> SuiteBlessing:
    """Record run ``run_id``'s tests as suite ``name``; UserError when the run has no tests."""
    check_name(name)
    tests = suite_tests(root, run_id)
    if not tests:
        raise UserError(f"run {run_id!r} has no tests in {root}", field="RUN",
                        fix="bless a run that built a suite (adat sql stg_runs), or pass --data-dir of its warehouse")
    row = SuiteBlessing(run_id=run_id, name=name, blessed_at=datetime.now(UTC), tests=len(tests), source=source)
    write_records(root, TABLE, [row], run_id=run_id, replace=False, owner="bless")
    return row


def blessings(root: Path) -> list[SuiteBlessing]:
    """Every blessing in the warehouse, oldest first."""
    rows = cast(list[SuiteBlessing], read_records(root, TABLE))
    return sorted(rows, key=lambda r: r.blessed_at)


def blessed_run(root: Path, name: str) -> str | None:
    """The run blessed last under ``name``; None when none is."""
    named = [r for r in blessings(root) if r.name == name]
    return named[-1].run_id if named else None


def resolve_suite(root: Path, ref: str, field: str = "RUN") -> str:
    """A suite reference — a blessed name or a run id with tests — as the suite's run id."""
    run = blessed_run(root, ref)
    if run is not None:
        return run
    if suite_tests(root, ref):
        return ref
    raise UserError(f"{ref!r} is neither a blessed suite nor a run with tests in {root}", field=field,
                    fix="pass a run id (adat sql stg_runs) or a name from `adat suite list`, or --data-dir")
