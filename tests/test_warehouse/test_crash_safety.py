"""A writer killed with SIGKILL at any point leaves no partial table visible to any reader."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from adat.warehouse import partition_dir, read_records

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

BATCH = 4000

_CHILD_PRELUDE = """
import os, secrets, sys, time
from pathlib import Path
from adat.records import Trace, Turn
from adat.warehouse import write_records
root = Path(sys.argv[1])
def batch(k):
    return [Trace(trace_id=f"t{k}-{i}", run_id="r1", kind="execution",
                  turns=[Turn(role="agent", text=secrets.token_hex(1024))]) for i in range(int(sys.argv[2]))]
"""

# Writes one whole part, then blocks inside the final rename of the second: killed there, the
# second part exists only as a complete temp file.
_CHILD_HANG_AT_RENAME = _CHILD_PRELUDE + """
write_records(root, "traces", batch(0), run_id="r1")
def hang(src, dst):
    print("RENAMING", flush=True)
    time.sleep(120)
os.replace = hang
write_records(root, "traces", batch(1), run_id="r1")
"""

# Writes big parts forever; the parent kills it while a temp file is being written.
_CHILD_WRITE_FOREVER = _CHILD_PRELUDE + """
k = 0
while True:
    write_records(root, "traces", batch(k), run_id="r1")
    k += 1
"""


def _visible_rows_duckdb(root: Path) -> int:
    pattern = str(root.resolve() / "runs" / "traces" / "run_id=*" / "*.parquet")
    con = duckdb.connect()
    try:
        row = con.execute("select count(*) from read_parquet($p, hive_partitioning = true, union_by_name = true)",
                          {"p": pattern}).fetchone()
    finally:
        con.close()
    assert row is not None
    return int(row[0])


def _assert_only_whole_parts_visible(root: Path) -> int:
    """Every reader agrees on a whole number of batches; returns how many batches are visible."""
    directory = partition_dir(root, "traces", "r1")
    parts = sorted(directory.glob("*.parquet"))
    for part in parts:
        assert pq.read_metadata(part).num_rows == BATCH  # a partial file has no footer and would raise
    records = read_records(root, "traces")
    assert len(records) == BATCH * len(parts)
    if parts:
        assert _visible_rows_duckdb(root) == len(records)
        assert ds.dataset(directory, format="parquet").count_rows() == len(records)
    return len(parts)


def _spawn(script: str, root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", script, str(root), str(BATCH)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_killed_before_the_rename_leaves_only_an_invisible_temp_file(tmp_path: Path) -> None:
    child = _spawn(_CHILD_HANG_AT_RENAME, tmp_path)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "RENAMING", child.stderr.read() if child.stderr else line
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    directory = partition_dir(tmp_path, "traces", "r1")
    leftovers = [p.name for p in directory.iterdir() if not p.name.endswith(".parquet")]
    assert len(leftovers) == 1 and leftovers[0].startswith(".part-") and leftovers[0].endswith(".tmp")
    assert _assert_only_whole_parts_visible(tmp_path) == 1


@pytest.mark.parametrize("whole_parts_first", [0, 2])
def test_killed_while_writing_leaves_no_partial_table(tmp_path: Path, whole_parts_first: int) -> None:
    directory = partition_dir(tmp_path, "traces", "r1")
    child = _spawn(_CHILD_WRITE_FOREVER, tmp_path)
    killed_during_write = False
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            if directory.is_dir() and len(list(directory.glob("*.parquet"))) >= whole_parts_first \
                    and any(directory.glob(".part-*.tmp")):
                killed_during_write = True
                break
            time.sleep(0.0005)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert killed_during_write, child.stderr.read() if child.stderr else "child never wrote"
    assert _assert_only_whole_parts_visible(tmp_path) >= whole_parts_first
