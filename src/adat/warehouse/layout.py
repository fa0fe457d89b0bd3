"""Where the warehouse's files are: names and paths only, no pyarrow and no DuckDB.

A command that only asks which parts exist — a cache key's digest of a suite's partitions, the
unchanged-re-run check — imports this module and nothing that reads Parquet. The rest of the
package (:mod:`adat.warehouse.parquet`, :mod:`adat.warehouse.catalog`) builds on these names.

Superseded parts: a part that a replace (a compaction, a recomputed stage) made obsolete is not
deleted at once: another command's catalog build or an analyst's query may have listed it a
moment ago and is about to open it. It gets a tombstone next to it (``.<part name>.superseded``,
an empty file) and stays on disk for :data:`adat.warehouse.parquet.SUPERSEDED_RETENTION_S`;
every reader skips it from then on (:func:`live_parts` here, the catalog's views in SQL). Always
list parts with :func:`live_parts`, never with a bare ``glob(PART_GLOB)``.
"""

from __future__ import annotations

import re
from pathlib import Path

from adat.errors import UserError

RUNS_DIR = "runs"
PART_GLOB = "part-*.parquet"
#: the Hive partition column of every table; not stored inside the Parquet files (see parquet.py).
PARTITION_COLUMN = "run_id"
CATALOG_FILE = "adat.duckdb"
#: a superseded part ``part-….parquet`` has the empty file ``.part-….parquet.superseded`` beside it
TOMBSTONE_SUFFIX = ".superseded"
TOMBSTONE_GLOB = f".{PART_GLOB}{TOMBSTONE_SUFFIX}"
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_run_id(run_id: str) -> str:
    """``run_id`` if it is safe as a directory name and a Hive partition value, else UserError."""
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
        raise UserError(f"run id {run_id!r} is not usable as a partition name", field="run_id",
                        fix="use letters, digits, '.', '_' or '-', starting with a letter or digit")
    return run_id


def catalog_path(root: Path) -> Path:
    """Where the catalog of warehouse ``root`` lives by default."""
    return Path(root) / CATALOG_FILE


def partition_path(root: Path, table: str, run_id: str) -> Path:
    """Directory of run ``run_id``'s partition of ``table`` (the name is not checked against the tables)."""
    return Path(root) / RUNS_DIR / table / f"{PARTITION_COLUMN}={check_run_id(run_id)}"


def tombstone_path(part: Path) -> Path:
    """The tombstone that marks ``part`` superseded."""
    return part.with_name(f".{part.name}{TOMBSTONE_SUFFIX}")


def tombstoned_part(tombstone: Path) -> Path:
    """The part a tombstone marks superseded."""
    return tombstone.with_name(tombstone.name[1:-len(TOMBSTONE_SUFFIX)])


def live_parts(directory: Path) -> list[Path]:
    """The parts of one partition directory that no replace superseded, in write order.

    Tombstones are listed before the parts: a replace writes its new part before it marks the old
    ones, so a replace running meanwhile can make this list show old and new rows together (as a
    reader between the two steps always could), never neither.
    """
    directory = Path(directory)
    if not directory.is_dir():
        return []
    gone = {tombstoned_part(tombstone).name for tombstone in directory.glob(TOMBSTONE_GLOB)}
    return sorted(part for part in directory.glob(PART_GLOB) if part.name not in gone)
