"""``sql/checks`` run after a stage's write (dbt's ``build``): a violation fails the stage.

Each check is a query returning violating rows (empty = pass). The checks that run after a stage
are those that read a table it wrote (a check's tables are the base tables its ``-- inputs:``
header names, staging and intermediate views resolved to the base tables their SQL reads), and
no table that a downstream stage wrote before this one ran: a re-run with new inputs leaves a
downstream stage's rows until it reruns, so the check waits for it (dbt tests a model after its
parents are built).
They run on the run's own rows (``$run_id``) against the catalog, brought up to date first; the
first violated check fails the stage with its name, the number of rows and the first few.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cache
from pathlib import Path

from adat.errors import StageFailed
from adat.records import TABLES

#: rows of a violated check shown in the error
SHOWN_ROWS = 5
#: file times come from the kernel's coarse clock, a few ms behind ``time.time()``: a part written
#: this long before the stage started is older than the stage (a downstream stage's runs later)
CLOCK_SLACK_S = 1.0
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT = re.compile(r"--[^\n]*")


class CheckFailed(StageFailed):
    """A ``sql/checks`` query returned rows after the stage's write; names the check, shows rows."""

    def __init__(self, stage: str, check: str, run_id: str, rows: list[dict[str, object]], total: int) -> None:
        self.check = check
        self.rows = rows
        super().__init__(stage, f"sql/checks/{check} found {total} violating row(s) in run {run_id}")
        self.args = (f"{self.args[0]}\n" + "\n".join(f"  {row}" for row in rows),)


@cache
def _tables_of(sql_file: Path, sql_dir: Path, header_only: bool) -> frozenset[str]:
    """The base tables ``sql_file`` reads: from its ``-- inputs:`` header (a check) or its SQL (a view)."""
    text = sql_file.read_text(encoding="utf-8")
    if header_only:
        line = next((ln for ln in text.splitlines() if ln.lower().startswith("-- inputs:")), "")
        words = set(_WORD.findall(line.partition(":")[2]))
    else:
        words = set(_WORD.findall(_COMMENT.sub(" ", text)))
    views = {p.stem: p for folder in ("staging", "intermediate") for p in (sql_dir / folder).glob("*.sql")}
    out: set[str] = {w for w in words if w in TABLES}
    for word in sorted(words & views.keys() - {sql_file.stem}):
        out |= _tables_of(views[word], sql_dir, False)
    return frozenset(out)


def checks_over(tables: Collection[str], sql_dir: Path) -> list[Path]:
    """The check files that read any of ``tables``, by name."""
    wanted = set(tables)
    return [path for path in sorted((sql_dir / "checks").glob("*.sql"))
            if wanted & _tables_of(path, sql_dir, True)]


def _stale(root: Path, run_id: str, stage: str, since: float | None) -> set[str]:
    """Tables holding rows that a stage downstream of ``stage`` wrote before ``stage`` started: a
    re-run of ``stage`` with new inputs (``--refresh``, an edited artifact) leaves them until those
    stages rerun too, later in the same flow, so checks over them wait for that stage."""
    from adat.engine.stage_registry import STAGES, downstream
    from adat.warehouse.layout import live_parts, partition_path

    if since is None:
        return set()
    later = {t for name in downstream([stage]) - {stage} for t in STAGES[name].writes}
    before = since - CLOCK_SLACK_S
    return {t for t in later if any(p.stat().st_mtime < before
                                    for p in live_parts(partition_path(root, t, run_id)))}


def run_checks(root: Path, run_id: str, tables: Collection[str], stage: str, since: float | None = None,
               sql_dir: Path | None = None) -> int:
    """Run the checks over ``tables`` on run ``run_id`` after ``stage`` (started at ``since``, a
    wall-clock time) wrote them; :class:`CheckFailed` on the first violated. A check over a
    table a downstream stage has yet to rewrite is left to that stage. Returns how many ran."""
    from adat.config import adat_home
    from adat.warehouse.catalog import refresh_catalog
    from adat.warehouse.sql_runner import locked_connection, run_query

    sql_dir = sql_dir or adat_home() / "sql"
    stale = _stale(root, run_id, stage, since)
    files = [f for f in checks_over(tables, sql_dir) if not stale & _tables_of(f, sql_dir, True)]
    if not files:
        return 0
    db = refresh_catalog(root, sql_dir)
    with locked_connection(db) as con:
        for path in files:
            found = run_query(db, path, {"run_id": run_id}, con=con)
            if found.num_rows:
                raise CheckFailed(stage, path.stem, run_id, found.slice(0, SHOWN_ROWS).to_pylist(), found.num_rows)
    return len(files)
