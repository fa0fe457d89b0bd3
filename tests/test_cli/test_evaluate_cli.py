"""`adat run` then `adat regress` / `adat evaluate` from the command line, as a user runs them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from adat.config import demo_config_path

pytestmark = pytest.mark.slow
ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]


def left_behind(session: int) -> list[str]:
    """Processes still in the session a command ran as leader of (Linux /proc; none elsewhere)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, session
        if int(fields[3]) == session and fields[0] != "Z":
            try:
                cmdline = stat.with_name("cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
            except OSError:
                cmdline = ""
            found.append(f"{text[:text.rindex(')') + 1]} {cmdline}".strip())
    return found


def test_run_then_regress_one_fault_and_errors(tmp_path: Path) -> None:
    cfg = yaml.safe_load(demo_config_path().read_text())
    cfg.update(run_id="cli-eval", data_dir=str(tmp_path / "data"))
    cfg["discovery"]["sessions"] = 6
    cfg["generation"]["n"] = 6
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "ADAT_CACHE_DIR": str(tmp_path / "cache")}

    def adat(*args: str) -> subprocess.CompletedProcess[str]:
        # its own session: whatever it starts (API server, fault workers, their fork server) is
        # in it, and must be gone once it has exited (a leftover would also hold its pipes open)
        proc = subprocess.Popen([*ADAT, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=600)
        finally:
            # a child that dies with the command (parent-death signal) may need a moment to exit
            # after it: as the interrupt tests do, give the session 5 s to empty
            deadline = time.monotonic() + 5
            while (stray := left_behind(proc.pid)) and time.monotonic() < deadline:
                time.sleep(0.1)
            if stray:
                os.killpg(proc.pid, signal.SIGKILL)
        assert not stray, f"adat {args[0]} left processes running: {stray}"
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    built = adat("run", "--config", str(config))
    assert built.returncode == 0, built.stderr[-3000:]

    regressed = adat("regress", "--config", str(config), "--run", "cli-eval", "--fault", "no_write_confirmation")
    assert regressed.returncode == 0, regressed.stderr[-3000:]
    assert "Mutation score" in regressed.stdout and "no_write_confirmation" in regressed.stdout

    # A second regression on the same run reports only the faults it was asked for.
    two = adat("regress", "--config", str(config), "--run", "cli-eval",
               "--fault", "cancel_any_reason", "--fault", "transfer_in_scope")
    assert two.returncode == 0, two.stderr[-3000:]
    detection = two.stdout[two.stdout.index("detection per fault"):]
    assert "cancel_any_reason" in detection and "transfer_in_scope" in detection
    assert "no_write_confirmation" not in two.stdout  # nor in the per-variant label, FAR and accuracy tables

    unknown_run = adat("evaluate", "--config", str(config), "--run", "no-such-run")
    assert unknown_run.returncode == 2 and "--run" in unknown_run.stderr
    unknown_fault = adat("regress", "--config", str(config), "--run", "cli-eval", "--fault", "nope")
    assert unknown_fault.returncode == 2 and "nope" in unknown_fault.stderr
    assert len(unknown_fault.stderr.strip().splitlines()) == 1
