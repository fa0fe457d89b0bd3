"""The DuckDB catalog: one view per warehouse table plus the ``sql/staging`` and ``sql/intermediate`` views.

The catalog file (``<root>/adat.duckdb``) holds views only, never data. It is built as a temp
file next to the target and ``os.replace``-d into place, because a DuckDB file held open
read-write blocks every other process (read-only opens included): an analyst's read-only
connection keeps the old file (its inode) and keeps answering; connections opened afterwards by
other processes see the new views. (Within one process DuckDB caches the database instance by
path: a process holding a connection open keeps getting the old catalog until it closes them.)

Base views (``traces``, ``verdicts``, …) read ``<root>/runs/<table>/run_id=*/part-*.parquet``
by absolute path (see below) with Hive partitioning (``run_id`` typed VARCHAR, never auto-cast to a number)
and ``union_by_name`` (parts written before a field was added give NULL). Their columns are the
record's fields in order, ``run_id``, and two load-order columns for dedupe: ``_part`` (part file
name, which sorts by write time) and ``_row`` (row number inside the part). A table with no files
yet gets a typed view with zero rows. The glob is re-read at query time, so new parts and runs
show up without a rebuild; rebuild when a table gets its first file or a record gains a field
(:func:`catalog_is_stale` tells). After a run, :func:`refresh_catalog` re-creates only the base
views of the tables the run wrote, in a copy of the catalog (a full build re-creates every view).

Superseded parts (a replace's, see :mod:`adat.warehouse.parquet`, "Retention") stay on disk for an
hour and a base view never returns their rows: it names those superseded when it was built (a
constant ``filename`` filter, which DuckDB prunes before it opens a file) and skips the later
ones by globbing their tombstones at query time (:func:`_live_filter`). The build reads only live
parts, by name, so another command's compaction never fails it. A process holding the file
read-write stops every build and read with one line (:mod:`adat.warehouse.catalog_holder`).

Staging and intermediate views are the bare selects of ``sql/staging`` and ``sql/intermediate``,
wrapped as ``create or replace view`` (intermediate after every staging view; ``sql/README.md``).
The file's storage version (:data:`STORAGE_VERSION`, for the released DuckDB command line) and its
absolute, guarded and re-rooted view paths (:func:`_location_guard`, :func:`_stamp`) are
explained in docs/architecture.md, "The catalog outside adat".
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from adat.errors import UserError
from adat.records import TABLES, Record
from adat.warehouse.catalog_holder import check_catalog_free
from adat.warehouse.layout import (
    CATALOG_FILE,
    PART_GLOB,
    PARTITION_COLUMN,
    RUNS_DIR,
    TOMBSTONE_GLOB,
    TOMBSTONE_SUFFIX,
    catalog_path,
    live_parts,
    tombstoned_part,
)
from adat.warehouse.parquet import sweep_superseded, table_dir
from adat.warehouse.schema import arrow_schema

__all__ = ["CATALOG_FILE", "build_catalog", "catalog_is_stale", "catalog_path", "refresh_catalog", "view_files"]
ORDER_COLUMNS = ("_part", "_row")
#: view layers built from ``sql/`` in this order: folder -> file/view name prefix
VIEW_LAYERS = {"staging": "stg_", "intermediate": "int_"}
#: DuckDB storage the catalog is written in: the oldest line the released command line reads and
#: that still has every function the views use (duckdb-cli 1.5.x reads storage v1.0.0-v1.5.x)
STORAGE_VERSION = "v1.4.0"


def build_catalog(root: Path, sql_dir: Path, *, db_path: Path | None = None) -> Path:
    """(Re)build the catalog of warehouse ``root`` atomically and return its path."""
    root = Path(root).resolve()
    db = Path(db_path) if db_path is not None else catalog_path(root)
    check_catalog_free(db)

    def build(con: duckdb.DuckDBPyConnection) -> None:
        for table, model in TABLES.items():
            con.execute(_base_view_sql(con, root, table, model, db))
        for folder in VIEW_LAYERS:  # staging first: intermediate views are built on it
            _create_views(con, view_files(sql_dir, folder))

    return _write_atomically(db, build)


def refresh_catalog(root: Path, sql_dir: Path) -> Path:
    """Bring the catalog of ``root`` up to date with the data as cheaply as that can be done; its path.

    The usual change since the catalog was built is a run's new parts in tables that have parts
    already. Base views glob their parts at query time, so a new part changes a view only when it
    is a table's first, or its schema differs from the table's (:func:`_schemas_differ`): such
    tables' base views are re-created in a copy of the catalog that replaces it; when there is
    none, the catalog is only marked current (its mtime). The ``sql/`` views on top are bound at
    query time and stay. Anything else — no catalog, a changed view file, a table directory
    added or removed, parts removed, another record schema or version of this module, a catalog
    built at another path (moved or copied with its data dir; :func:`_stamp`) — is a full
    :func:`build_catalog`.
    """
    root = Path(root).resolve()
    db = catalog_path(root)
    runs = root / RUNS_DIR
    check_catalog_free(db)
    sweep_superseded(root)
    if not db.is_file() or _stamp_of(db) != _stamp(db):
        return build_catalog(root, sql_dir)
    built = db.stat().st_mtime_ns
    if any(path.stat().st_mtime_ns >= built for path in _watched_view_files(sql_dir)) \
            or (runs.is_dir() and runs.stat().st_mtime_ns >= built):
        return build_catalog(root, sql_dir)
    changes = {table: _view_change(runs / table, built) for table in TABLES}
    if not any(changes.values()):
        return db
    if "rebuild" in changes.values():
        return build_catalog(root, sql_dir)
    stale = [table for table, change in changes.items() if change == "view"]
    if not stale:
        os.utime(db)  # new parts only, each read by its table's view as it is
        return db

    def update(con: duckdb.DuckDBPyConnection) -> None:
        for table in stale:
            con.execute(_base_view_sql(con, root, table, TABLES[table], db))

    try:
        return _write_atomically(db, update, start_from=db)
    except duckdb.Error:  # a file this DuckDB cannot open as it is
        return build_catalog(root, sql_dir)


def _view_change(table_dir_: Path, built: int) -> str:
    """What changed in a table's parts since ``built``: '' nothing; 'parts' new parts its view reads as
    it is; 'view' new parts or tombstones its view must be re-created for; 'rebuild' parts or
    partitions removed."""
    if not table_dir_.is_dir():
        return ""
    partitions = list(table_dir_.glob(f"{PARTITION_COLUMN}=*"))
    if _mtime(table_dir_) < built and all(_mtime(p) < built for p in partitions):
        return ""
    old: Path | None = None
    new: list[Path] = []
    superseded = False  # the view's list of parts it never opens (:func:`_live_filter`) is out of date
    for partition in partitions:
        parts = live_parts(partition)
        fresh = [p for p in parts if _mtime(p) >= built]
        tombstoned = any(_mtime(t) >= built for t in partition.glob(TOMBSTONE_GLOB))
        if _mtime(partition) >= built and not fresh and not tombstoned:
            return "rebuild"  # a part removed, and nothing written: the view may have lost its files
        superseded = superseded or tombstoned
        new += fresh
        old = old or next((p for p in parts if _mtime(p) < built), None)
    if not new and not superseded:
        return "rebuild"  # a partition removed
    if old is None or superseded:
        return "view"  # the table's first parts, or parts superseded since
    schema = pq.read_schema(old)
    return "parts" if all(pq.read_schema(p).equals(schema) for p in new) else "view"


def _mtime(path: Path) -> int:
    """``path``'s mtime in ns; 0 for a file gone meanwhile (a tombstone another process swept)."""
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def _stamp_of(db: Path) -> str | None:
    """The :func:`_stamp` the catalog at ``db`` was built with (None: unreadable, or none)."""
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        check_catalog_free(db)  # held read-write by another process: one line, not a silent rebuild
        return None
    try:
        row = con.execute("select comment from duckdb_views() where view_name = $name and not internal",
                          {"name": _VERSION_VIEW}).fetchone()
    finally:
        con.close()
    return str(row[0]) if row and row[0] else None


def _write_atomically(db: Path, fill: Callable[[duckdb.DuckDBPyConnection], None], *,
                      start_from: Path | None = None) -> Path:
    """Fill a temp catalog next to ``db`` (empty, or a copy of ``start_from``), stamp it, replace ``db``."""
    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.with_name(f".{db.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        if start_from is not None:
            shutil.copyfile(start_from, tmp)
        con = duckdb.connect(str(tmp), config={"storage_compatibility_version": STORAGE_VERSION})
        try:
            fill(con)
            con.execute(f"comment on view {_ident(_VERSION_VIEW)} is {_literal(_stamp(db))}")
            con.execute("checkpoint")
        finally:
            con.close()
        # A WAL left by someone who opened the old file read-write must not be replayed onto the new one.
        Path(f"{db}.wal").unlink(missing_ok=True)
        os.replace(tmp, db)
    finally:
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}.wal").unlink(missing_ok=True)
    return db


#: the base view whose comment records :func:`_stamp` (re-set after every build or refresh)
_VERSION_VIEW = next(iter(TABLES))


def _stamp(db: Path) -> str:
    """What a catalog at ``db`` must have been built with to be current: :func:`_catalog_version` and
    the file's own absolute path (a catalog moved or copied with its data dir reads the old paths)."""
    return f"{_catalog_version()} at {_db_locations(db)[0]}"


def _db_locations(db: Path) -> list[str]:
    """The absolute paths under which DuckDB may report the catalog file: as given, and resolved."""
    given = os.path.abspath(db)
    resolved = str(Path(db).resolve())
    return [given] if resolved == given else [given, resolved]


def _location_guard(db: Path) -> str:
    """A WHERE condition that is true when the catalog file ``db`` is open at that path, else an error.

    ``duckdb_databases()`` gives every attached file's absolute path (the command line's, adat's
    and any other client's). A copy of the catalog opened at another path fails with one line
    instead of reading the original directory's files through its absolute view paths.
    """
    paths = ", ".join(_literal(path) for path in _db_locations(db))
    message = (f"this adat catalog was built as {_db_locations(db)[0]} and reads that data dir's runs; "
               "it has been moved or copied: run `adat catalog --data-dir DIR` (DIR: the folder of this "
               "file) to rebuild it there")
    return (f"case when exists (select 1 from duckdb_databases() where path in ({paths})) "
            f"then true else error({_literal(message)}) end")


@cache
def _catalog_version() -> str:
    """What the base views are made from besides the data: every record's schema and this module."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for table, model in TABLES.items():
        digest.update(f"{table}:{arrow_schema(model)}".encode())
    return f"adat-catalog {digest.hexdigest()[:16]}"


def view_files(sql_dir: Path, folder: str) -> list[Path]:
    """The view files of layer ``folder`` (a :data:`VIEW_LAYERS` key), sorted; UserError on a badly named one."""
    prefix = VIEW_LAYERS[folder]
    directory = Path(sql_dir) / folder
    files = sorted(directory.glob("*.sql")) if directory.is_dir() else []
    for path in files:
        if not re.fullmatch(f"{prefix}[a-z0-9_]+", path.stem):
            raise UserError(f"{folder} file name is not {prefix}<snake_case>.sql", file=str(path),
                            fix="rename it: the file name is the view name")
    return files


def catalog_is_stale(root: Path, sql_dir: Path) -> bool:
    """True when the catalog is missing or older than a table/partition directory or a view file,
    or was built by another version of this module or at another path (:func:`_stamp`).

    Writing or removing a part touches its partition directory, so directory mtimes suffice.
    """
    db = catalog_path(root)
    if not db.is_file():
        return True
    built = db.stat().st_mtime_ns
    runs = Path(root) / RUNS_DIR
    watched = [runs, *runs.glob("*"), *runs.glob(f"*/{PARTITION_COLUMN}=*")] if runs.is_dir() else []
    if any(path.stat().st_mtime_ns >= built for path in [*watched, *_watched_view_files(sql_dir)]):
        return True
    return _stamp_of(db) != _stamp(db)  # built by another adat, or at another path (moved/copied)


def _watched_view_files(sql_dir: Path) -> list[Path]:
    """The view layers' folders (an mtime catches a removed file) and files."""
    watched: list[Path] = []
    for folder in VIEW_LAYERS:
        layer = Path(sql_dir) / folder
        watched += [layer, *layer.glob("*.sql")] if layer.is_dir() else []
    return watched


def _base_view_sql(con: duckdb.DuckDBPyConnection, root: Path, table: str, model: type[Record], db: Path) -> str:
    """``create or replace view <table>`` over the table's parts by absolute path, guarded by the
    catalog's location (:func:`_location_guard`); a typed empty view when there are no parts."""
    expected = _duckdb_types(con, model)
    directory = table_dir(root, table).resolve()
    pattern = str(directory / f"{PARTITION_COLUMN}=*" / PART_GLOB)
    order_cols = [f"parse_filename(filename) as {ORDER_COLUMNS[0]}", f"file_row_number as {ORDER_COLUMNS[1]}"]
    # The build itself reads only live parts, by name: a superseded part may be swept meanwhile.
    live = [str(part) for partition in sorted(glob.glob(str(directory / f"{PARTITION_COLUMN}=*")))
            for part in live_parts(Path(partition))]
    if not live:
        typed_nulls = [f"cast(null as {typ}) as {_ident(name)}" for name, typ in expected.items()]
        typed_nulls += [f"cast(null as varchar) as {ORDER_COLUMNS[0]}", f"cast(null as bigint) as {ORDER_COLUMNS[1]}"]
        return f"create or replace view {_ident(table)} as select {', '.join(typed_nulls)} where false"
    by_name = "true" if _schemas_differ(con, live) else "false"
    options = (f"hive_partitioning = true, union_by_name = {by_name}, "
               f"hive_types = {{'{PARTITION_COLUMN}': 'VARCHAR'}}, filename = true, file_row_number = true")
    scan = f"read_parquet({_literal(pattern)}, {options})"
    describe = f"describe select * from read_parquet([{', '.join(map(_literal, live))}], {options})"
    present = {row[0]: row[1] for row in con.execute(describe).fetchall()}
    columns = []
    for name, typ in expected.items():
        if name not in present:
            columns.append(f"cast(null as {typ}) as {_ident(name)}")
        elif present[name] != typ:
            columns.append(f"cast({_ident(name)} as {typ}) as {_ident(name)}")
        else:
            columns.append(_ident(name))
    return (f"create or replace view {_ident(table)} as select {', '.join(columns + order_cols)} from {scan} "
            f"where {_location_guard(db)} and {_live_filter(directory)}")


def _live_filter(directory: Path) -> str:
    """A WHERE condition keeping the rows of the table's live parts (``directory``: its folder).

    Parts superseded when the view is built are named in the view: DuckDB prunes a constant
    ``filename`` filter before it opens any file, so a query never opens them (they may be swept
    while it runs). Parts superseded later are skipped by their tombstones, globbed when the query
    runs; such a part still exists (for ``SUPERSEDED_RETENTION_S``), so opening it is safe.
    """
    superseded = sorted(str(tombstoned_part(Path(t))) for t in glob.glob(
        str(directory / f"{PARTITION_COLUMN}=*" / TOMBSTONE_GLOB), include_hidden=True))
    tombstones = _literal(str(directory / f"{PARTITION_COLUMN}=*" / TOMBSTONE_GLOB))
    suffix = re.escape(TOMBSTONE_SUFFIX)
    later = (f"filename not in (select regexp_replace(file, '/\\.([^/]+){suffix}$', '/\\1') "
             f"from glob({tombstones}))")
    if not superseded:
        return later
    return f"filename not in ({', '.join(map(_literal, superseded))}) and {later}"


def _schemas_differ(con: duckdb.DuckDBPyConnection, files: list[str]) -> bool:
    """True when some part file lacks a column (or nested field) that another part has.

    ``union_by_name`` reads every file's schema each time a query binds the view (about 1 s per
    reference for 2,000 parts); with one schema DuckDB reads the first file's and matches the
    others' columns by name. A part written later without one of them makes DuckDB fail loudly
    (not misread), and a new part makes the catalog stale, so ``adat sql`` rebuilds it first.
    """
    row = con.execute(f"select count(distinct file_name), count(distinct name), count(distinct (file_name, name)) "
                      f"from parquet_schema([{', '.join(map(_literal, files))}])").fetchone()
    assert row is not None
    files, names, pairs = row
    return bool(pairs != files * names)


def _duckdb_types(con: duckdb.DuckDBPyConnection, model: type[Record]) -> dict[str, str]:
    """Column -> DuckDB type of ``model``'s table, via DuckDB's own reading of the Arrow schema."""
    relation = con.from_arrow(arrow_schema(model).empty_table())
    return {name: str(typ) for name, typ in zip(relation.columns, relation.dtypes, strict=True)}


def _create_views(con: duckdb.DuckDBPyConnection, files: list[Path]) -> None:
    """Create every view of one layer; retry those whose dependencies are not created yet."""
    pending = {path: _view_sql(path) for path in files}
    while pending:
        failures: dict[Path, duckdb.Error] = {}
        for path, sql in pending.items():
            try:
                con.execute(sql)
            except duckdb.CatalogException as exc:  # may be a view of this layer created later in this pass
                failures[path] = exc
            except duckdb.Error as exc:
                raise _sql_error(path, exc) from None
        if len(failures) == len(pending):
            path, error = next(iter(failures.items()))
            raise UserError(first_line(error), file=str(path), fix="fix the table/view or column name")
        pending = {path: pending[path] for path in failures}


def _view_sql(path: Path) -> str:
    body = path.read_text(encoding="utf-8").strip().rstrip(";").rstrip()
    if not body or not re.search(r"\bselect\b", body, re.IGNORECASE):
        raise UserError(f"{path.parent.name} file must hold one select statement", file=str(path),
                        fix="write a bare select (CTEs allowed); the catalog wraps it in a view")
    return f"create or replace view {_ident(path.stem)} as\n{body}\n"


def _sql_error(path: Path, exc: duckdb.Error) -> UserError:
    if isinstance(exc, duckdb.InvalidInputException) and "parameters" in str(exc):
        return UserError(first_line(exc), file=str(path),
                         fix="a view takes no parameters: leave the run filter to the query that reads it")
    return UserError(first_line(exc), file=str(path), fix="correct the SQL")


def first_line(exc: Exception) -> str:
    """An error's one line for the user: the first line of its message, else its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
