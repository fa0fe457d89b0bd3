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
    from adat.warehouse.parquet import (
        check_run_id,
        clean_temp_files,
        partition_dir,
        read_frame,
        read_records,
        run_ids,
        sweep_superseded,
        table_dir,
        write_records,
    )
    from adat.warehouse.schema import UnsupportedAnnotation, arrow_schema, file_schema
    from adat.warehouse.sql_runner import (
        OUTPUT_FORMATS,
        available_queries,
        declared_params,
        format_table,
        resolve_query,
        run_query,
        sql_command,
    )

#: exported name -> the module of this package that defines it
_MODULES = {
    **dict.fromkeys(("build_catalog", "catalog_is_stale", "catalog_path", "refresh_catalog"), "catalog"),
    **dict.fromkeys(("check_run_id", "clean_temp_files", "partition_dir", "read_frame", "read_records", "run_ids",
                     "sweep_superseded", "table_dir", "write_records"), "parquet"),
    **dict.fromkeys(("UnsupportedAnnotation", "arrow_schema", "file_schema"), "schema"),
    **dict.fromkeys(("OUTPUT_FORMATS", "available_queries", "declared_params", "format_table", "resolve_query",
                     "run_query", "sql_command"), "sql_runner"),
}

__all__ = [
    "OUTPUT_FORMATS",
    "UnsupportedAnnotation",
    "arrow_schema",
    "available_queries",
    "build_catalog",
    "catalog_is_stale",
    "catalog_path",
    "check_run_id",
    "clean_temp_files",
    "declared_params",
    "file_schema",
    "format_table",
    "partition_dir",
    "read_frame",
    "read_records",
    "refresh_catalog",
    "resolve_query",
    "run_ids",
    "run_query",
    "sql_command",
    "sweep_superseded",
    "table_dir",
    "write_records",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
