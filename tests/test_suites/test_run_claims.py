"""Run-id claims: another flow's id and a live writer are refused in one line; a dead writer's id
is resumed; a second nightly flow run of the same minute gets an id of its own."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adat.pipeline import run_claims
from adat.pipeline.run_claims import RunIdInUse, claim_night, claim_run, release
from adat.records import Run
from adat.warehouse import write_records

HOLDER = """
import sys, time
from pathlib import Path
from adat.pipeline.run_claims import hold
assert hold(Path(sys.argv[1]), sys.argv[2])
print("held", flush=True)
time.sleep(60)
"""


def _holder(root: Path, run_id: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(root), run_id], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_run_id_a_live_process_writes_is_refused_and_free_once_it_dies(tmp_path: Path) -> None:
    proc = _holder(tmp_path, "r1")
    try:
        with pytest.raises(RunIdInUse) as err:
            claim_run(tmp_path, "r1", "pipeline")
        assert f"pid {proc.pid}" in str(err.value) and len(str(err.value).splitlines()) == 1
    finally:
        proc.kill()
        proc.wait()
    claim_run(tmp_path, "r1", "pipeline")  # SIGKILLed writer: the kernel dropped its lock, a re-run resumes
    claim_run(tmp_path, "r1", "pipeline")  # re-entrant in one process (a flow and its subflow)
    release(tmp_path, "r1")
    release(tmp_path, "r1")
    assert not run_claims._HELD


def test_a_run_id_of_another_flow_is_refused_the_same_flow_resumes(tmp_path: Path) -> None:
    write_records(tmp_path, "runs", [Run(run_id="r2", flow="pipeline", started_at=datetime.now(UTC))], run_id="r2")
    with pytest.raises(RunIdInUse, match="in use by a pipeline run"):
        claim_run(tmp_path, "r2", "run_suite")
    claim_run(tmp_path, "r2", "pipeline")
    release(tmp_path, "r2")


def test_a_second_night_of_the_same_minute_gets_its_own_id_a_retry_keeps_its_own(tmp_path: Path) -> None:
    first, second = "0b7c0000-0000-7000-8000-00000000aaaa", "0b7c0000-0000-7000-8000-00000000bbbb"
    assert claim_night(tmp_path, "nightly-20261203-0200", first) == "nightly-20261203-0200"
    assert claim_night(tmp_path, "nightly-20261203-0200", second) == "nightly-20261203-0200-bbbb"
    assert claim_night(tmp_path, "nightly-20261203-0200", first) == "nightly-20261203-0200"  # a retry resumes
    assert claim_night(tmp_path, "nightly-20261203-0200", second) == "nightly-20261203-0200-bbbb"


def test_adat_run_with_a_run_id_being_written_exits_2_in_one_line_before_any_flow(tmp_path: Path) -> None:
    from tests.support.demo_config import small_demo_config, write_config

    config = write_config(small_demo_config(tmp_path / "data", sessions=1, n=1, run_id="busy"), tmp_path / "run.yaml")
    proc = _holder(tmp_path / "data", "busy")
    try:
        result = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                                 str(config)], capture_output=True, text=True, timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "run id 'busy' is being written by another running process" in lines[0], lines
    assert not (tmp_path / "data" / "runs" / "runs").exists()  # no flow started, no run recorded


def _running(root: Path, run_id: str, status: str = "running") -> None:
    write_records(root, "runs", [Run(run_id=run_id, flow="pipeline", started_at=datetime.now(UTC), status=status)],
                  run_id=run_id, replace=True)


def test_a_running_row_whose_writer_is_gone_is_abandoned_a_live_or_own_one_is_not(tmp_path: Path) -> None:
    from adat.pipeline.run_claims import hold, mark_abandoned
    from adat.warehouse import read_records

    for run_id in ("live", "dead", "own", "done"):
        _running(tmp_path, run_id)
    _running(tmp_path, "done", "completed")
    live = _holder(tmp_path, "live")
    dead = _holder(tmp_path, "dead")
    dead.kill()
    dead.wait()
    assert hold(tmp_path, "own")  # this process writes it
    try:
        assert mark_abandoned(tmp_path) == ["dead"]
        assert mark_abandoned(tmp_path) == []  # once
    finally:
        live.kill()
        live.wait()
        release(tmp_path, "own")
    status = {r.run_id: (r.status, r.error) for r in read_records(tmp_path, "runs")}
    assert status["dead"] == ("abandoned", f"the process writing it (pid {dead.pid}) is gone")
    assert [status[r][0] for r in ("live", "own", "done")] == ["running", "running", "completed"]
    assert not run_claims._HELD, "the sweep kept a claim"
    claims = tmp_path / "claims"
    assert (claims / "own.lock").stat().st_size == 0, "a claim released cleanly is left as a lead"
    assert (claims / "dead.lock").stat().st_size == 0, "a lead followed once is followed again"
    assert mark_abandoned(tmp_path / "nothing-here") == []


def test_interrupting_marks_only_the_runs_this_process_holds(tmp_path: Path) -> None:
    from adat.interrupts import mark_interrupted
    from adat.pipeline.run_claims import hold
    from adat.warehouse import read_records

    _running(tmp_path, "mine")
    _running(tmp_path, "other")
    assert hold(tmp_path, "mine")
    try:
        assert mark_interrupted() == ["mine"]
    finally:
        release(tmp_path, "mine")
    status = {r.run_id: (r.status, r.error) for r in read_records(tmp_path, "runs")}
    assert status == {"mine": ("failed", "interrupted"), "other": ("running", "")}
