"""Run a query from ``sql/`` by name against the catalog, with bound parameters.

Conventions for query files (see ``sql/README.md``):

* One statement per file. A header comment line ``-- params: run_id, fault_id`` declares the
  named parameters the query uses as ``$run_id``/``$fault_id``. Values are always bound by DuckDB,
  never spliced into the text.
* An optional run filter is written ``($run_id is null or run_id = $run_id)``; the CLI passes
  ``run_id=None`` when ``--run`` is not given.
* Names resolve in ``sql/metrics``, then ``sql/checks``, ``sql/intermediate``, ``sql/staging`` and ``sql/report``;
  ``metrics/x`` names one folder; an existing file ending in ``.sql`` is used as is. Nothing else
  is read: a name never walks out of ``sql/``.
* A query is one SELECT, run on a private read-only DuckDB that can open no file but the
  warehouse's Parquet parts, so a query cannot write files (``COPY … TO``) or read others.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
import shutil
from collections.abc import Mapping
from contextlib import nullcontext
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from adat.errors import UserError
from adat.warehouse.catalog import catalog_is_stale, catalog_path, first_line, refresh_catalog
from adat.warehouse.catalog_holder import check_catalog_free
from adat.warehouse.parquet import RUNS_DIR
from adat.yaml_io import read_user_text

QUERY_FOLDERS = ("metrics", "checks", "intermediate", "staging", "report")
#: values of ``adat sql --format``
OUTPUT_FORMATS = ("table", "csv", "parquet")
_PARAMS_LINE = re.compile(r"^\s*--\s*params\s*:(.*)$", re.IGNORECASE)
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: a query name: ``NAME`` or ``FOLDER/NAME``, optionally ending in ``.sql``; never a path elsewhere
_QUERY_NAME = re.compile(rf"(?:(?:{'|'.join(QUERY_FOLDERS)})/)?[A-Za-z0-9_]+(?:\.sql)?")


def resolve_query(name_or_file: str, sql_dir: Path) -> Path:
    """The query file for a name (``validity_rate``, ``metrics/validity_rate``) or a ``.sql`` file path.

    A name only ever resolves inside ``sql_dir``'s query folders (no ``..``, no absolute paths);
    any other file is used only when the user names an existing ``.sql`` file.
    """
    candidate = Path(name_or_file)
    if name_or_file.endswith(".sql") and candidate.is_file():
        return candidate
    if not _QUERY_NAME.fullmatch(name_or_file):
        raise UserError(f"no query named {name_or_file[:80]!r}", field="NAME",
                        fix="name a query in sql/ (adat sql --help) or an existing .sql file")
    sql_dir = Path(sql_dir)
    stem = name_or_file[:-4] if name_or_file.endswith(".sql") else name_or_file
    candidates = [sql_dir / f"{stem}.sql"] if "/" in stem else [sql_dir / f / f"{stem}.sql" for f in QUERY_FOLDERS]
    matches = [path for path in candidates if path.is_file()]
    if len(matches) > 1:
        names = ", ".join(f"{m.parent.name}/{m.stem}" for m in matches)
        raise UserError(f"query name {name_or_file!r} is ambiguous: {names}", field="NAME",
                        fix="prefix the folder, e.g. metrics/NAME")
    if matches:
        return matches[0]
    known = available_queries(sql_dir)
    by_name = {q.split("/", 1)[1]: q for q in known}  # compare bare names when no folder was given
    close = ([by_name[n] for n in difflib.get_close_matches(stem, list(by_name), n=5, cutoff=0.5)]
             if "/" not in stem else difflib.get_close_matches(stem, known, n=5, cutoff=0.5))
    hint = f"did you mean: {', '.join(close)}" if close else f"see {sql_dir}/{{{','.join(QUERY_FOLDERS)}}}/*.sql"
    raise UserError(f"no query named {name_or_file!r}", file=str(sql_dir), field="NAME", fix=hint)


def available_queries(sql_dir: Path) -> list[str]:
    """Every runnable query as ``folder/name``, sorted."""
    return sorted(f"{folder}/{path.stem}" for folder in QUERY_FOLDERS
                  for path in (Path(sql_dir) / folder).glob("*.sql"))


def declared_params(sql_file: Path) -> list[str]:
    """Parameter names from the ``-- params:`` lines of the file's leading comment block."""
    names: list[str] = []
    for line in read_user_text(Path(sql_file), what="query file").splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("--"):
            break
        match = _PARAMS_LINE.match(stripped)
        if match:
            for name in (part.strip().lstrip("$") for part in match.group(1).split(",")):
                if not _PARAM_NAME.fullmatch(name):
                    raise UserError(f"bad parameter name {name!r}", file=str(sql_file), field="-- params",
                                    fix="list names separated by commas, e.g. '-- params: run_id'")
                names.append(name)
    return names


def run_query(db_path: Path, sql_file: Path, params: Mapping[str, object], *,
              con: duckdb.DuckDBPyConnection | None = None) -> pa.Table:
    """Run ``sql_file`` on the catalog at ``db_path`` (opened read-only) with bound parameters.

    Every declared parameter must be in ``params`` (its value may be None); a parameter given a
    value that the file does not declare is an error, so a typo'd ``--run`` never goes unnoticed.
    ``con``: a :func:`locked_connection` to ``db_path`` to run on (left open), instead of a new one.
    """
    if not Path(db_path).is_file():
        raise UserError("catalog not found", file=str(db_path), fix="build it with build_catalog / `adat sql`")
    declared = declared_params(sql_file)
    missing = [name for name in declared if name not in params]
    if missing:
        raise UserError(f"missing value for parameter(s) {', '.join(missing)}", file=str(sql_file),
                        field="-- params", fix="pass them (e.g. --run RUN_ID)")
    unused = [name for name, value in params.items() if name not in declared and value is not None]
    if unused:
        raise UserError(f"query takes no parameter(s) {', '.join(unused)}", file=str(sql_file),
                        field="-- params", fix="drop them, or declare and use them in the query")
    sql = read_user_text(Path(sql_file), what="query file")
    _check_single_select(sql, sql_file)
    bound = {name: params[name] for name in declared}
    with locked_connection(Path(db_path)) if con is None else nullcontext(con) as connection:
        try:
            relation = connection.sql(sql, params=bound or None)
            if relation is None:
                raise UserError("the query returns no result set", file=str(sql_file),
                                fix="end the file with a select")
            return relation.to_arrow_table()
        except duckdb.Error as exc:
            raise UserError(first_line(exc), file=str(sql_file),
                            fix="correct the query (parameters go in '-- params:')") from None


def _check_single_select(sql: str, sql_file: Path) -> None:
    """A query file holds one SELECT: no COPY, EXPORT, ATTACH, SET, INSTALL or DDL."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise UserError(first_line(exc), file=str(sql_file), fix="correct the query") from None
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        kinds = ", ".join(_statement_kind(st) for st in statements) or "nothing"
        raise UserError(f"a query file must hold exactly one SELECT, not {kinds}", file=str(sql_file),
                        fix="write one select (or with ... select); queries never write files or settings")


def _statement_kind(statement: Any) -> str:
    """What a statement does, as the user wrote it: DuckDB files INSTALL under LOAD, and PRAGMA,
    SHOW or SUMMARIZE under other types; the first keyword of the text names it as written."""
    words = re.findall(r"[A-Za-z_]+", re.sub(r"--[^\n]*|/\*.*?\*/", " ", statement.query, flags=re.S))
    return words[0].upper() if words else statement.type.name


def locked_connection(db_path: Path) -> duckdb.DuckDBPyConnection:
    """A private in-memory DuckDB with the catalog attached read-only and file access locked down.

    The only files the query can open are the warehouse's Parquet parts (``<root>/runs/``, which
    the catalog's views read); ``enable_external_access = false`` blocks reading or writing any
    other file (``read_csv('/etc/passwd')``, ``COPY … TO``, ``ATTACH``, ``INSTALL``) and
    ``lock_configuration`` stops the query from switching it back. A fresh in-memory instance
    keeps these global settings away from every other connection of the process.
    """
    con = duckdb.connect()
    try:
        try:
            con.execute("attach $path as warehouse (read_only)", {"path": str(db_path)})
        except duckdb.IOException:
            check_catalog_free(Path(db_path))  # held read-write elsewhere: one line naming the holder
            raise
        con.execute("use warehouse")
        con.execute("set allowed_directories = $dirs", {"dirs": [f"{(db_path.parent / RUNS_DIR).resolve()}/"]})
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def format_table(table: pa.Table, fmt: str, out: Path | None = None, wide: bool = False) -> str | None:
    """Render ``table`` as text (``table``/``csv``) or write it (``parquet``, or any format with ``out``).

    ``fmt`` is one of :data:`OUTPUT_FORMATS`. Returns the text to print (print it verbatim, e.g.
    ``sys.stdout.write``: re-wrapping breaks CSV), or None when it was written to ``out``.
    """
    if fmt == "parquet":
        if out is None:
            raise UserError("--format parquet needs an output file", field="--out", fix="add --out FILE.parquet")
        pq.write_table(table, out)
        return None
    if fmt == "csv":
        text = _csv_text(table)
    elif fmt == "table":
        text = _box_text(table, wide)
    else:
        raise UserError(f"unknown format {fmt!r}", field="--format", fix="use table, csv or parquet")
    if out is None:
        return text
    Path(out).write_text(text, encoding="utf-8")
    return None


def sql_command(data_root: Path, sql_dir: Path, name: str, run_id: str | None, fmt: str,
                out: Path | None, params: Mapping[str, object] | None = None, wide: bool = False) -> str | None:
    """What ``adat sql NAME|FILE [--run RUN_ID] [--format …] [--out FILE]`` does.

    Rebuilds the catalog first when it is missing or older than the data, runs the query with
    ``run_id`` (None = every run) and any further ``params``, and returns the text to print
    (None when written to ``out``).
    """
    sql_file = resolve_query(name, sql_dir)
    # the query is read and checked before the catalog is (re)built: a bad file writes nothing
    _check_single_select(read_user_text(sql_file, what="query file"), sql_file)
    declared = declared_params(sql_file)
    db = catalog_path(data_root)
    if catalog_is_stale(data_root, sql_dir):
        try:
            refresh_catalog(data_root, sql_dir)
        except OSError as exc:  # a read-only data root: fall back to the catalog that is there
            if not db.is_file():
                raise UserError(f"cannot build the catalog: {exc.strerror}", file=str(db),
                                fix="make the data directory writable or point --data at a built one") from None
    # From the command line, a declared parameter left out means NULL (every metric documents
    # what NULL means for it, e.g. "all runs" or "the run's configured n").
    bound: dict[str, object] = dict.fromkeys(declared)
    # A view without a run_id parameter (staging, intermediate) is filtered on its run_id column.
    filter_rows = run_id is not None and "run_id" not in declared
    bound.update({"run_id": None if filter_rows else run_id, **(params or {})})
    table = run_query(db, sql_file, bound)
    if filter_rows:
        if "run_id" not in table.column_names:
            raise UserError("the query has no run_id column to filter", file=str(sql_file), field="--run",
                            fix="drop --run, or declare '-- params: run_id' and filter in the query")
        table = table.filter(pc.equal(table["run_id"].cast(pa.string()), str(run_id)))
    return format_table(table, fmt, out, wide)


def _plain(value: Any) -> Any:
    """A cell as CSV/terminal text: nested values as JSON, everything else unchanged."""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def _csv_text(table: pa.Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.column_names)
    for row in table.to_pylist():
        writer.writerow(["" if v is None else _plain(v) for v in row.values()])
    return buffer.getvalue()


#: ``--format table`` hides a column holding JSON text (``*_json``) or nested values whose widest
#: cell is longer than this, unless ``--wide`` is given; CSV and Parquet always keep every column.
WIDE_CELL = 60
#: the width a table renders at when stdout is not a terminal: rows are never folded in a pipe
PIPE_WIDTH = 10_000


def _cell(value: Any) -> str:
    """A cell as terminal text: NULL, floats rounded to 4 decimals (tiny ones in 3 significant
    digits), nested values as JSON."""
    if value is None:
        return "NULL"
    if isinstance(value, float | Decimal) and not isinstance(value, bool):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")) or number == int(number):
            return str(value)
        if abs(number) < 1e-4:
            return f"{number:.3g}"
        return f"{number:.4f}".rstrip("0")
    return str(_plain(value))


def wide_columns(table: pa.Table) -> list[str]:
    """Columns ``--format table`` hides unless ``--wide``: JSON text or wide nested values."""
    hidden = []
    for field in table.schema:
        nested = pa.types.is_nested(field.type)
        if field.name.endswith("_json") or (nested and any(
                len(_cell(v)) > WIDE_CELL for v in table.column(field.name).to_pylist())):
            hidden.append(field.name)
    return hidden


def _box_text(table: pa.Table, wide: bool = False) -> str:
    import sys

    from rich.console import Console
    from rich.table import Table

    hidden = [] if wide else wide_columns(table)
    shown = table.drop_columns(hidden) if hidden else table
    box = Table(show_lines=False)
    for name in shown.column_names:
        box.add_column(name, overflow="fold")
    for row in shown.to_pylist():
        box.add_row(*(_cell(v) for v in row.values()))
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else PIPE_WIDTH
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    console.print(box)
    console.print(f"{table.num_rows} row{'s' if table.num_rows != 1 else ''}")
    if hidden:
        console.print(f"hidden wide columns: {', '.join(hidden)} (--wide shows them, --format csv keeps all)")
    return buffer.getvalue()
