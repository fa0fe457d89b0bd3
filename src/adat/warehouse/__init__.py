"""The warehouse: records as Hive-partitioned Parquet tables, a DuckDB catalog of views over them,
and a runner for the queries in ``sql/``.

Layout under a data root (``RunConfig.data_path()``, ``data/`` by default)::

    runs/<table>/run_id=<run_id>/part-<time_ns>-<uuid>.parquet   one table per adat.records.TABLES entry
    adat.duckdb                                                  views only; rebuilt atomically
"""

from adat.warehouse.catalog import build_catalog, catalog_is_stale, catalog_path
from adat.warehouse.parquet import (
    check_run_id,
    clean_temp_files,
    partition_dir,
    read_frame,
    read_records,
    run_ids,
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
    "resolve_query",
    "run_ids",
    "run_query",
    "sql_command",
    "table_dir",
    "write_records",
]
