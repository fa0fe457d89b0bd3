"""Two `adat run` commands on one data dir at once, and an analyst reading the catalog meanwhile
(issue 30, item 4).

Five times, two `adat run` processes start together on one data dir (the offline demo config,
shrunk to the smallest run that still compacts its transformation parts and ends by refreshing
the catalog). Meanwhile a reader thread holds a read-only DuckDB connection to `adat.duckdb` and
counts every base view and a few staging views in a loop, reconnecting every few seconds (an
analyst coming back) so that it also reads the catalogs the runs rebuild. Every command must exit
0, the reader must never see an error, and afterwards every `sql/checks` query is empty for
every run. The first pair runs as a user without a server does (each command starts Prefect's
temporary server); the other four share the test session's Prefect server, as with `adat server`.

Before superseded parts were kept (adat.warehouse.parquet, "Retention"), 1 pair in 5 failed
(the catalog build at the end of one run read a part the other run's compaction deleted) and the
reader saw `Cannot open file`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from adat.config import adat_home
from tests.support.demo_config import small_demo_config, write_config

pytestmark = pytest.mark.slow

PAIRS = 5
#: the reader opens a fresh connection this often (in between, it holds one)
RECONNECT_S = 5.0


def _run(config: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                             str(config)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Reader(threading.Thread):
    """An analyst: a read-only connection to the catalog, held, querying in a loop."""

    def __init__(self, db: Path) -> None:
        super().__init__(daemon=True)
        self.db, self.stop, self.queries, self.errors = db, threading.Event(), 0, Counter[str]()

    def run(self) -> None:
        import duckdb

        from adat.records import TABLES

        views = [*TABLES, "stg_tests", "stg_executions", "stg_verdicts", "stg_attempts", "stg_runs"]
        while not self.stop.is_set():
            if not self.db.is_file():
                time.sleep(0.2)
                continue
            con = duckdb.connect(str(self.db), read_only=True)
            opened = time.monotonic()
            try:
                while not self.stop.is_set() and time.monotonic() - opened < RECONNECT_S:
                    for view in views:
                        try:
                            con.execute(f'select count(*) from "{view}"').fetchall()
                            self.queries += 1
                        except duckdb.Error as exc:
                            self.errors[str(exc).splitlines()[0][:200]] += 1
            finally:
                con.close()


def test_two_runs_at_once_five_times_with_a_reader_exit_0_and_leave_every_check_empty(
        tmp_path: Path, prefect_api_url: str) -> None:
    from adat.warehouse import build_catalog, catalog_path, declared_params, read_records, run_query

    root = tmp_path / "data"
    cfg = small_demo_config(root, sessions=2, n=2, run_id=None)
    config = write_config(cfg, tmp_path / "run.yaml")
    # The first pair as two commands of one user without a server: one PREFECT_HOME, each command
    # starting its temporary Prefect server on it (over the default 30 s on a loaded 2-core machine).
    # The other pairs use the test session's Prefect server, as with `adat server`: the race under
    # test is on the data dir, and two temporary servers per pair cost ≈ 8 s of each run's wall time.
    own = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env = {**own, "PREFECT_HOME": str(tmp_path / "prefect"), "ADAT_CACHE_DIR": str(tmp_path / "cache"),
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180"}
    shared = {**env, "PREFECT_API_URL": prefect_api_url}
    reader = Reader(catalog_path(root))
    reader.start()
    started = time.monotonic()
    try:
        for pair in range(PAIRS):
            procs = [_run(config, env if pair == 0 else shared) for _ in range(2)]
            for proc in procs:
                out, err = proc.communicate(timeout=900)
                assert proc.returncode == 0, f"pair {pair + 1}: exit {proc.returncode}\n{out[-1500:]}\n{err[-3000:]}"
                assert "Traceback" not in err, f"pair {pair + 1}:\n{err[-3000:]}"
    finally:
        reader.stop.set()
        reader.join(timeout=60)
    elapsed = time.monotonic() - started
    assert reader.queries > 100, reader.queries
    assert not reader.errors, dict(reader.errors)

    runs = read_records(root, "runs")
    finished = {r.run_id: r.status for r in runs}  # type: ignore[attr-defined]
    assert len(finished) == 2 * PAIRS and set(finished.values()) == {"completed"}, finished
    attempts = read_records(root, "attempts")
    assert attempts, "the runs made no transformation attempt: nothing was compacted"
    sql = adat_home() / "sql"
    db = build_catalog(root, sql)
    for check in sorted((sql / "checks").glob("*.sql")):
        rows = run_query(db, check, dict.fromkeys(declared_params(check)))
        assert rows.num_rows == 0, f"{check.name}: {rows.to_pylist()[:3]}"
    print(f"\n{PAIRS} pairs of `adat run` in {elapsed:.0f} s; reader: {reader.queries} queries, 0 errors")
