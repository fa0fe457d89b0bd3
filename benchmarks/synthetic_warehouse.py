"""A synthetic warehouse of many runs, tiled from a real template run, and every sql/metrics query timed on it.

Used by ``benchmarks/throughput.py``. Every table of the template run (its Parquet parts, owners
kept) is copied into ``runs`` synthetic runs, each ``copies`` times over, with pyarrow only: rows
are repeated with ``Table.take`` and every run-scoped id column gets a per-run, per-copy suffix, so
ids stay unique across the warehouse and every join of the real data still matches. The files
have the real schema (they are the template's columns), so the real DuckDB catalog is built over
them and the queries run through ``adat.warehouse.sql_runner.run_query`` as ``adat sql`` runs them.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

#: id columns whose values name something of one run (suffixed per copy); catalog ids
#: (instruction_id, prompt_id, rule_id, spec_id, agent_id) are shared and stay as they are.
RUN_SCOPED_IDS = ("trace_id", "session_id", "statement_id", "supporting_trace_id", "test_id", "execution_id",
                  "call_id", "result_id", "mutant_id", "source_test_id", "parent_test_id")
#: one row per run (or a catalog snapshot): copied once per synthetic run, never tiled
NOT_TILED = ("runs", "instructions", "stage_runs")


def _suffixed(column: pa.ChunkedArray, suffixes: pa.Array) -> pa.Array:
    col = column.combine_chunks()
    if not pa.types.is_string(col.type) and not pa.types.is_large_string(col.type):
        return col
    joined = pc.binary_join_element_wise(col, suffixes, "")
    return pc.if_else(pc.is_null(col), col, joined)  # a null id (an attempt without a test) stays null


def tile_table(data: pa.Table, copies: int, run_tag: str) -> pa.Table:
    """``data`` repeated ``copies`` times; run-scoped ids get ``~<run_tag>.<copy>``."""
    n = data.num_rows
    out = data.take(pa.array(np.tile(np.arange(n, dtype=np.int64), copies)))
    copy_index = np.repeat(np.arange(copies), n)
    suffixes = pa.array([f"~{run_tag}.{k}" for k in range(copies)]).take(pa.array(copy_index))
    for name in out.schema.names:
        if name in RUN_SCOPED_IDS:
            out = out.set_column(out.schema.get_field_index(name), name, _suffixed(out[name], suffixes))
    return out


def build(template_root: Path, template_run: str, out_root: Path, *, runs: int, executions: int) -> dict[str, int]:
    """Write ``runs`` synthetic runs with ``executions`` execution rows in all; return rows per table."""
    tables = sorted(p.parent.name for p in (template_root / "runs").glob(f"*/run_id={template_run}"))
    parts = {t: sorted((template_root / "runs" / t / f"run_id={template_run}").glob("part-*.parquet")) for t in tables}
    template_executions = sum(pq.ParquetFile(p).metadata.num_rows for p in parts.get("executions", []))
    if template_executions == 0:
        raise SystemExit(f"template run {template_run} has no executions")
    copies = -(-executions // (runs * template_executions))
    rows: dict[str, int] = {}
    for r in range(runs):
        run_id = f"syn-{r:03d}"
        for table, files in parts.items():
            target = out_root / "runs" / table / f"run_id={run_id}"
            target.mkdir(parents=True, exist_ok=True)
            for f in files:
                tiled = tile_table(pq.read_table(f), 1 if table in NOT_TILED else copies, f"{r}")
                pq.write_table(tiled, target / f.name, row_group_size=64_000, compression="zstd")
                rows[table] = rows.get(table, 0) + tiled.num_rows
    return rows


def time_metrics(root: Path, sql_dir: Path, run_id: str, fault_ids: list[str],
                 repeat: int = 1) -> tuple[float, list[tuple[str, float, int]]]:
    """Build the catalog over ``root``; time every sql/metrics query for ``run_id`` (best of ``repeat``).

    Returns (catalog s, [(name, s, rows)]).
    """
    from adat.warehouse.catalog import build_catalog
    from adat.warehouse.sql_runner import declared_params, run_query

    start = time.perf_counter()
    db = build_catalog(root, sql_dir)
    catalog_s = time.perf_counter() - start
    values: dict[str, object] = {"run_id": run_id, "n": 10, "faults": ",".join(fault_ids)}
    timings = []
    for sql_file in sorted((sql_dir / "metrics").glob("*.sql")):
        params = {name: values.get(name) for name in declared_params(sql_file)}
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            table = run_query(db, sql_file, params)
            best = min(best, time.perf_counter() - start)
        timings.append((sql_file.stem, best, table.num_rows))
    return catalog_s, timings
