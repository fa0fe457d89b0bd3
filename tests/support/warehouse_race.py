"""A writer, a catalog builder and a read-only analyst on one warehouse at once (issue 30, item 4).

Three processes share a data dir for ``seconds``:

* the **writer** plays a stage of another run: it appends small parts to run ``w``'s partitions
  and compacts them (``write_records(..., replace=True)``), which supersedes the parts it wrote;
* the **builder** plays a second command: it rebuilds the catalog (:func:`build_catalog`) and runs
  one ``adat sql`` query (``sql_command``) over and over;
* the **reader** plays an analyst: one read-only DuckDB connection to ``adat.duckdb``, held open,
  counting the rows of every base view and staging view in a loop.

Each process counts what it did and the first line of every error. :func:`race` returns the
three tallies; the harness is shared by ``tests/test_warehouse/test_concurrent_runs.py`` and
``benchmarks/warehouse_race.py``.
"""

from __future__ import annotations

import multiprocessing
import re
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

#: the tables the writer compacts (each a few rows a part, like the transformation's parts)
WRITER_TABLES = ("tests", "executions", "verdicts", "runs", "attempts")
WRITER_RUN = "w"


def _first_line(exc: BaseException) -> str:
    """The error's first line with part names and paths blanked, so that errors of one kind count together."""
    text = str(exc).strip()
    line = re.sub(r'"[^"]*/(runs/[^/"]+)/run_id=[^/"]+/part-[^"]+"', r'"…/\1/run_id=…/part-….parquet"',
                  text.splitlines()[0] if text else "")
    return f"{type(exc).__name__}: {line}"[:200]


def _writer(root: str, seconds: float, out: Any) -> None:
    from adat.records import TABLES
    from adat.warehouse import write_records
    from tests.fixtures.warehouse_records import rich_record

    done, errors = 0, Counter[str]()
    deadline = time.monotonic() + seconds
    k = 0
    while time.monotonic() < deadline:
        try:
            for table in WRITER_TABLES:
                rows = [rich_record(TABLES[table], variant=1 + (k + i) % 3, run_id=WRITER_RUN) for i in range(2)]
                write_records(Path(root), table, rows[:1], run_id=WRITER_RUN, owner="stage")
                write_records(Path(root), table, rows, run_id=WRITER_RUN, owner="stage", replace=True)
            done += 1
        except Exception as exc:  # counted, never raised: the tally is the result
            errors[_first_line(exc)] += 1
        k += 1
    out.put(("writer", done, dict(errors)))


def _builder(root: str, sql_dir: str, seconds: float, out: Any) -> None:
    from adat.warehouse import build_catalog, sql_command

    done, errors = 0, Counter[str]()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            build_catalog(Path(root), Path(sql_dir))
            sql_command(Path(root), Path(sql_dir), "checks/duplicate_verdicts", None, "csv", None)
            done += 1
        except Exception as exc:
            errors[_first_line(exc)] += 1
            if len(errors) == 1 and sum(errors.values()) == 1:
                errors["first traceback: " + traceback.format_exc()[-600:]] = 0
    out.put(("builder", done, dict(errors)))


def _reader(root: str, seconds: float, out: Any) -> None:
    import duckdb

    from adat.records import TABLES
    from adat.warehouse import catalog_path

    con = duckdb.connect(str(catalog_path(Path(root))), read_only=True)
    views = [*TABLES, "stg_tests", "stg_executions", "stg_verdicts"]
    done, errors = 0, Counter[str]()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for view in views:
            try:
                con.execute(f'select count(*) from "{view}"').fetchall()
                done += 1
            except duckdb.Error as exc:
                errors[_first_line(exc)] += 1
    con.close()
    out.put(("reader", done, dict(errors)))


def race(root: Path, sql_dir: Path, seconds: float) -> dict[str, tuple[int, dict[str, int]]]:
    """Run the writer, the builder and the reader on warehouse ``root`` for ``seconds``; per role,
    (operations that succeeded, {first line of an error: count})."""
    from adat.warehouse import build_catalog, write_records
    from tests.fixtures.warehouse_records import write_fixture_warehouse

    root = Path(root)
    if not (root / "runs").is_dir():
        write_fixture_warehouse(root)
    from adat.records import TABLES
    from tests.fixtures.warehouse_records import rich_record

    for table in WRITER_TABLES:  # the writer's tables exist before the reader's catalog is built
        write_records(root, table, [rich_record(TABLES[table], variant=1, run_id=WRITER_RUN)],
                      run_id=WRITER_RUN, owner="stage")
    build_catalog(root, sql_dir)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(str(root), seconds, out)),
             ctx.Process(target=_builder, args=(str(root), str(sql_dir), seconds, out)),
             ctx.Process(target=_reader, args=(str(root), seconds, out))]
    for proc in procs:
        proc.start()
    results = {}
    for _ in procs:
        role, done, errors = out.get(timeout=seconds + 300)
        results[role] = (done, errors)
    for proc in procs:
        proc.join(timeout=60)
    return results
