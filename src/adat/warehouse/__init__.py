"""The warehouse: records as Hive-partitioned Parquet tables, a DuckDB catalog of views over them,
and a runner for the queries in ``sql/``.

Layout under a data root (``RunConfig.data_path()``, ``data/`` by default)::

    runs/<table>/run_id=<run_id>/part-<time_ns>-<uuid>.parquet   one table per adat.records.TABLES entry
    adat.duckdb                                                  views only; rebuilt atomically

The names below load their module (pyarrow, DuckDB) on first use, so importing a light module of
the package — :mod:`adat.warehouse.layout`, the file names — loads neither.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adat.warehouse.catalog import build_catalog, catalog_is_stale, catalog_path, refresh_catalog
    from adat.warehouse.parquet import partition_dir, read_records, run_ids, sweep_superseded, write_records
    from adat.warehouse.sql_runner import (
        available_queries,
        declared_params,
        format_table,
        resolve_query,
        run_query,
        sql_command,
    )

__all__ = ["available_queries", "build_catalog", "catalog_is_stale", "catalog_path", "declared_params", "format_table",
           "partition_dir", "read_records", "refresh_catalog", "resolve_query", "run_ids", "run_query", "sql_command",
           "sweep_superseded", "write_records"]
#: exported name -> the module of this package that defines it
_MODULES = {name: module for module, names in (
    ("catalog", ("build_catalog", "catalog_is_stale", "catalog_path", "refresh_catalog")),
    ("parquet", ("partition_dir", "read_records", "run_ids", "sweep_superseded", "write_records")),
    ("sql_runner", ("available_queries", "declared_params", "format_table", "resolve_query", "run_query",
                    "sql_command")),
) for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
