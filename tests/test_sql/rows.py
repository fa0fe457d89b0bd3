"""Comparing query results with hand-written expected rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pytest


@dataclass(frozen=True)
class Case:
    """Expected result of one query run: column names, rows as tuples, extra bound parameters."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    params: dict[str, Any] = field(default_factory=dict)

    def dicts(self, run_id: str | None = None) -> list[dict[str, Any]]:
        out = [dict(zip(self.columns, row, strict=True)) for row in self.rows]
        return [r for r in out if run_id is None or r["run_id"] == run_id]


def _key(row: dict[str, Any]) -> tuple[str, ...]:
    return tuple(repr(v) for v in row.values() if not isinstance(v, float))


def assert_rows(table: pa.Table, case: Case, run_id: str | None = None) -> None:
    """Same columns in order, same rows in any order; floats compared with a relative tolerance."""
    assert tuple(table.column_names) == case.columns
    actual = sorted(table.to_pylist(), key=_key)
    expected = sorted(case.dicts(run_id), key=_key)
    assert len(actual) == len(expected), f"{len(actual)} rows, expected {len(expected)}:\n{actual}"
    for got, want in zip(actual, expected, strict=True):
        for column, value in want.items():
            if isinstance(value, float):
                assert got[column] == pytest.approx(value), f"{column} in {got}"
            else:
                assert got[column] == value, f"{column} in {got}"
