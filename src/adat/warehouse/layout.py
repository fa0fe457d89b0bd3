"""Where the warehouse's files are: names and paths only, no pyarrow and no DuckDB.

A command that only asks which parts exist — a cache key's digest of a suite's partitions, the
unchanged-re-run check — imports this module and nothing that reads Parquet. The rest of the
package (:mod:`adat.warehouse.parquet`, :mod:`adat.warehouse.catalog`) builds on these names.
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


def run_parts(root: Path, run_id: str) -> list[Path]:
    """Every part of run ``run_id``, all tables, sorted by table then write order."""
    runs = Path(root) / RUNS_DIR
    return sorted(runs.glob(f"*/{PARTITION_COLUMN}={check_run_id(run_id)}/{PART_GLOB}")) if runs.is_dir() else []
