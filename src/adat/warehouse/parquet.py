"""Records <-> Hive-partitioned Parquet tables, written atomically.

Layout: ``<root>/runs/<table>/run_id=<run_id>/part-<time_ns>-<uuid>.parquet``.

* **Partition column.** ``run_id`` lives only in the directory name (the Hive partition), not
  inside the files: one source of truth, and DuckDB's ``hive_partitioning`` never sees two
  competing values. Readers (here and in the catalog) add it back as a ``str`` column.
* **Atomic writes.** A part is written to ``.part-….parquet.tmp`` in the partition directory,
  fsynced, then ``os.replace``-d to its final name, and the directory is fsynced. The temp name
  starts with a dot (pyarrow datasets skip it) and does not end in ``.parquet`` (DuckDB's
  ``*.parquet`` globs do not match it; DuckDB does *not* skip dot- or underscore-files). A writer
  killed at any point leaves either a whole part or an invisible temp file.
* **Order.** Part names start with a zero-padded ``time.time_ns()``, so name order is write
  order; staging views use it (``_part``, ``_row``) to keep the latest row per key.
* **Owners.** A part may name its writer: ``part-<time_ns>-<uuid>-<owner>.parquet``. A table
  several stages write (``tests``: plain generation, transformation; ``executions``: each
  phase and each fault's regression) is thereby split into partitions per owner inside the run's
  directory; a stage replaces only its own parts and never reads-filters-rewrites another's.
* **Replace.** ``replace=True`` writes the new part first and then marks the other parts of the
  same owner (every part when no owner is given) superseded with a tombstone
  (:func:`adat.warehouse.layout.live_parts`). A reader listing the directory in between may see
  old and new rows together (never a partial file, never an empty partition), and a crash in
  between is repaired by running the same ``replace`` again.
* **Retention.** A superseded part stays on disk :data:`SUPERSEDED_RETENTION_S` after its
  tombstone was written, because another process may have listed it just before (a catalog
  build of a concurrent command, an analyst's query through the catalog's views, which glob the
  parts at query time) and opens it a moment later: deleting it at once made those fail with
  "Cannot open file". :func:`sweep_superseded` then deletes it (every replace sweeps its own
  partition, every catalog refresh the whole warehouse).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from adat import redaction
from adat.records import TABLES, Record
from adat.warehouse.layout import (
    PART_GLOB,
    PARTITION_COLUMN,
    RUNS_DIR,
    TOMBSTONE_GLOB,
    check_run_id,
    live_parts,
    partition_path,
    tombstone_path,
    tombstoned_part,
)
from adat.warehouse.schema import file_schema

__all__ = ["PART_GLOB", "PARTITION_COLUMN", "RUNS_DIR", "check_run_id", "model_for", "part_owner",
           "partition_dir", "read_records", "run_ids", "sweep_superseded", "table_dir", "write_records"]

TEMP_SUFFIX = ".tmp"
#: rows per Parquet row group; large enough for fast scans, small enough to stream.
ROW_GROUP_ROWS = 64_000
#: how long a superseded part stays on disk after its replace: longer than any one catalog build
#: or query takes (a query lists the parts when it starts and opens them while it runs)
SUPERSEDED_RETENTION_S = 3600.0
_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def model_for(table: str) -> type[Record]:
    """The record model of ``table``; ValueError for a name not in ``adat.records.TABLES``."""
    try:
        return TABLES[table]
    except KeyError:
        raise ValueError(f"unknown warehouse table {table!r}; known: {', '.join(TABLES)}") from None


def table_dir(root: Path, table: str) -> Path:
    """Directory holding every partition of ``table``."""
    model_for(table)
    return Path(root) / RUNS_DIR / table


def partition_dir(root: Path, table: str, run_id: str) -> Path:
    """Directory of one run's partition of ``table``."""
    model_for(table)
    return partition_path(root, table, run_id)


def part_owner(path: Path) -> str:
    """The owner named in a part's file name ('' for a part written without one)."""
    pieces = path.name[len("part-"):-len(".parquet")].split("-", 2)
    return pieces[2] if len(pieces) == 3 else ""


def write_records(root: Path, table: str, records: Sequence[Record], *, run_id: str,
                  replace: bool = False, owner: str = "") -> Path | None:
    """Append ``records`` to ``table`` as one new part of run ``run_id``; return its path.

    Every record must be of the table's model and carry ``run_id`` (an empty ``run_id``, as on
    catalog instructions, is set). With ``replace=True`` the new part replaces the existing parts
    of that run written by ``owner`` (all of them when ``owner`` is empty): a recomputed stage;
    with no records those parts are then removed. Returns None when nothing was written.
    """
    model = model_for(table)
    if owner and not _OWNER.fullmatch(owner):
        raise ValueError(f"part owner {owner!r} is not a safe file-name piece")
    directory = partition_dir(root, table, run_id)
    # Every string is scrubbed of the registered secrets (adat.redaction) on its way to disk.
    for record in records:
        if not isinstance(record, model):
            raise TypeError(f"table {table!r} holds {model.__name__} records, got {type(record).__name__}")
        if getattr(record, PARTITION_COLUMN) not in ("", run_id):  # '' takes the partition's run id
            raise ValueError(f"{model.__name__} with run_id {getattr(record, PARTITION_COLUMN)!r} written to "
                             f"partition run_id={run_id!r}")
    rows = [redaction.scrub_value(record.model_dump(exclude={PARTITION_COLUMN})) for record in records]
    _check_aware_datetimes(rows, model)
    data = pa.Table.from_pylist(rows, schema=file_schema(model))
    written = _write_part(directory, data, owner) if rows else None
    if replace and directory.is_dir():
        for old in live_parts(directory):
            if old != written and (not owner or part_owner(old) == owner):
                tombstone_path(old).touch()  # never unlinked here: see "Retention" above
        _fsync_dir(directory)
        sweep_superseded(directory)
    return written


def read_records(root: Path, table: str, *, run_id: str | None = None,
                 owner: str | Callable[[str], bool] | None = None) -> list[Record]:
    """Every record of ``table`` (one run's when ``run_id`` is given; one owner's parts when
    ``owner`` is given, or the parts whose owner ``owner(name)`` accepts), in write order.

    Parts another writer may be replacing concurrently are safe to skip by owner: a reader that
    names only its own owners never opens a part someone else can unlink under it.
    """
    model = model_for(table)
    accept = owner if callable(owner) else None if owner is None else owner.__eq__
    out: list[Record] = []
    for rid in [run_id] if run_id is not None else run_ids(root, table):
        for path in live_parts(partition_dir(root, table, rid)):
            if accept is not None and not accept(part_owner(path)):
                continue
            data = pq.read_table(path)
            unknown = set(data.schema.names) - set(model.model_fields)
            if unknown:
                raise ValueError(f"{path}: columns {sorted(unknown)} are not fields of {model.__name__}; "
                                 "a field was removed or renamed: migrate or delete the old partition")
            out += [model.model_validate({**row, PARTITION_COLUMN: rid}) for row in data.to_pylist()]
    return out


def run_ids(root: Path, table: str) -> list[str]:
    """Run ids that have a partition directory in ``table``, sorted."""
    tdir = table_dir(root, table)
    prefix = f"{PARTITION_COLUMN}="
    return sorted(p.name[len(prefix):] for p in tdir.glob(prefix + "*") if p.is_dir()) if tdir.is_dir() else []


def sweep_superseded(path: Path, *, older_than_s: float = SUPERSEDED_RETENTION_S) -> int:
    """Delete the parts superseded more than ``older_than_s`` ago, under ``path`` (a warehouse root
    or one partition directory), then their tombstones; the number of parts deleted."""
    path = Path(path)
    pattern = TOMBSTONE_GLOB if path.name.startswith(f"{PARTITION_COLUMN}=") \
        else f"{RUNS_DIR}/*/{PARTITION_COLUMN}=*/{TOMBSTONE_GLOB}"
    cutoff = time.time() - older_than_s
    removed = 0
    for tombstone in path.glob(pattern) if path.is_dir() else []:
        try:
            if tombstone.stat().st_mtime > cutoff:
                continue
        except FileNotFoundError:  # another process swept it just now
            continue
        # the part first: a reader that finds the tombstone skips the part, present or not
        tombstoned_part(tombstone).unlink(missing_ok=True)
        tombstone.unlink(missing_ok=True)
        removed += 1
    return removed


def _check_aware_datetimes(rows: list[dict[str, Any]], model: type[Record]) -> None:
    """Naive datetimes would be stored as if UTC; refuse them rather than shift times silently."""
    fields = [f.name for f in file_schema(model) if "timestamp" in str(f.type)]
    for row in rows:
        for name in fields:
            for value in _datetimes(row[name]):
                if value.tzinfo is None or value.utcoffset() is None:
                    raise ValueError(f"{model.__name__}.{name}: naive datetime {value!r}; "
                                     "use a timezone-aware one, e.g. datetime.now(timezone.utc)")


def _datetimes(value: Any) -> Iterator[datetime]:
    if isinstance(value, datetime):
        yield value
    elif isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _datetimes(item)


def _write_part(directory: Path, data: pa.Table, owner: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:12]}{'-' + owner if owner else ''}.parquet"
    final, tmp = directory / name, directory / f".{name}{TEMP_SUFFIX}"
    try:
        pq.write_table(data, tmp, row_group_size=ROW_GROUP_ROWS, compression="zstd")
        _fsync_file(tmp)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(directory)
    return final


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable; some filesystems cannot fsync a directory, which is harmless."""
    with contextlib.suppress(OSError):
        _fsync_file(directory)
