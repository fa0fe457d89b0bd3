"""Named queries from ``sql/report`` and ``sql/metrics`` as rows: the one way adat's outputs (run
summary, spec-suite summary, report, JUnit, diff, show, UI artifacts) read a figure.

Every figure those outputs show is a row of one of these queries (metrics live in SQL only); this
module only finds the file, binds its declared parameters (missing ones as NULL) and returns rows.
It lives in the warehouse package, which imports no plotting or templating library, so a command's
summary costs no more than the query.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from adat.config import adat_home
from adat.errors import UserError
from adat.warehouse.catalog import catalog_path, refresh_catalog
from adat.warehouse.sql_runner import declared_params, locked_connection, run_query

#: folders searched for a query name, in order
REPORT_QUERY_FOLDERS = ("report", "metrics")


class ReportQueries:
    """Runs queries by name against the catalog of the warehouse at ``data_root``.

    The catalog is brought up to date once, on first use, when it is missing or older than the
    data. Each query opens its own connection, unless inside :meth:`session`.
    """

    def __init__(self, data_root: Path, sql_dir: Path | None = None) -> None:
        self.data_root = Path(data_root)
        self.sql_dir = Path(sql_dir) if sql_dir else adat_home() / "sql"
        self._ready = False
        self._con: duckdb.DuckDBPyConnection | None = None

    @contextmanager
    def session(self) -> Iterator[ReportQueries]:
        """These queries on one connection until the block ends (a connection costs tens of ms)."""
        self._refresh()
        try:
            with locked_connection(catalog_path(self.data_root)) as self._con:
                yield self
        finally:
            self._con = None

    def _refresh(self) -> None:
        if not self._ready:
            refresh_catalog(self.data_root, self.sql_dir)
            self._ready = True

    def _file(self, name: str) -> Path:
        for folder in REPORT_QUERY_FOLDERS:
            path = self.sql_dir / folder / f"{name}.sql"
            if path.is_file():
                return path
        raise UserError(f"query {name!r} not found", file=str(self.sql_dir),
                        fix=f"restore sql/{{{','.join(REPORT_QUERY_FOLDERS)}}}/{name}.sql from the checkout")

    def rows(self, name: str, **params: object) -> list[dict[str, Any]]:
        """The rows of query ``name`` with ``params`` bound (declared parameters not given are NULL)."""
        path = self._file(name)
        self._refresh()
        bound: dict[str, object] = dict.fromkeys(declared_params(path))
        bound.update(params)
        return list(run_query(catalog_path(self.data_root), path, bound, con=self._con).to_pylist())

    def run_exists(self, run_id: str) -> bool:
        """Whether ``run_id`` has any test or execution in the warehouse."""
        return bool(self.rows("run_presence", run_id=run_id))
