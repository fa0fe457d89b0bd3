"""Ctrl-C, SIGTERM and kill -9 of a command: a few seconds, one line, a marked run, no orphan (issue 30 item 3).

Real ``adat`` commands in their own process group, with no ``adat server`` (Prefect's temporary
API server is the command's child, as for a user). The plain executions of ``adat run`` get
SIGINT and those of ``adat run-suite`` get SIGTERM, each sent to the whole group as a terminal
or a CI runner does; ``adat evaluate``'s own process gets SIGKILL once its fault workers run,
and ``adat run-suite``'s group gets SIGKILL so that the next command finds the run abandoned.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adat.engine.run_claims import mark_abandoned
from adat.warehouse import read_records
from tests.support.adat_command import Command, command_env, fork_servers, workers_run
from tests.support.demo_config import small_demo_config, write_config

pytestmark = pytest.mark.slow

SUITE = "suite-int"
EXECUTING = "executions ("


def _last_run(root: Path, run_id: str):  # type: ignore[no-untyped-def]
    return read_records(root, "runs", run_id=run_id)[-1]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """A completed small ``adat run`` (the suite run-suite and evaluate use): config, data dir, env."""
    tmp = tmp_path_factory.mktemp("suite")
    config = write_config(small_demo_config(tmp / "data", sessions=3, n=6, run_id=SUITE), tmp / "run.yaml")
    env = command_env(tmp)
    done = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                           str(config)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return config, tmp / "data", env


def _check_interrupted(cmd: Command, sig: int, root: Path, run_id: str) -> None:
    assert mark_abandoned(root) == [], "a live run was marked abandoned"
    code, took = cmd.signal_group(sig)
    name = signal.Signals(sig).name
    assert code == 128 + sig, f"exit {code}: {''.join(cmd.said_since())[-2000:]}"
    assert took <= 5, f"{took:.1f} s to stop after {name}"
    run = _last_run(root, run_id)
    assert (run.status, run.error) == ("failed", "interrupted")
    time.sleep(2)  # the children (the temporary API server) end, and say nothing
    assert cmd.session() == [], f"left running: {[p.cmdline() for p in cmd.session()]}"
    one_line = f"interrupted ({name}); run {run_id} marked failed: interrupted\n"
    assert cmd.said_since() == [one_line], cmd.said_since()[:20]


def test_sigint_to_the_group_during_plain_executions_stops_run_with_one_line(tmp_path: Path) -> None:
    config = write_config(small_demo_config(tmp_path / "data", sessions=2, n=6, run_id="int-run"),
                          tmp_path / "run.yaml")
    cmd = Command(command_env(tmp_path), "run", "--config", str(config))
    cmd.wait_for(lambda: cmd.printed("executions (plain, original): 1/"), "the plain executions")
    _check_interrupted(cmd, signal.SIGINT, tmp_path / "data", "int-run")


def test_sigterm_to_the_group_during_run_suite_executions_stops_with_one_line(suite) -> None:  # type: ignore[no-untyped-def]
    config, root, env = suite
    cmd = Command(env, "run-suite", "--config", str(config), "--suite", SUITE, "--run-id", "term-run")
    cmd.wait_for(lambda: cmd.printed(EXECUTING), "the executions")
    _check_interrupted(cmd, signal.SIGTERM, root, "term-run")


def test_a_killed_run_is_abandoned_for_the_next_command(suite) -> None:  # type: ignore[no-untyped-def]
    config, root, env = suite
    cmd = Command(env, "run-suite", "--config", str(config), "--suite", SUITE, "--run-id", "killed-run")
    cmd.wait_for(lambda: cmd.printed(EXECUTING), "the executions")
    os.killpg(cmd.proc.pid, signal.SIGKILL)
    cmd.proc.wait()
    assert _last_run(root, "killed-run").status == "running"
    shown = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "sql", "stg_runs",
                            "--run", "killed-run", "--format", "csv", "--data-dir", str(root)],
                           env=env, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert shown.stderr == "note: run killed-run was still marked running but its process is gone: marked abandoned\n"
    assert ",abandoned," in shown.stdout, shown.stdout
    run = _last_run(root, "killed-run")
    assert run.status == "abandoned" and f"(pid {cmd.proc.pid})" in run.error, run
    assert _last_run(root, SUITE).status == "completed", "a finished run was touched"


def test_kill_9_of_evaluate_leaves_no_child_alive_10_s_later(suite) -> None:  # type: ignore[no-untyped-def]
    config, _root, env = suite
    cmd = Command(env, "evaluate", "--config", str(config), "--run", SUITE)
    cmd.wait_for(lambda: workers_run(cmd), "the fault workers")
    names = [line[:120] for pid, line in cmd.command_lines().items() if pid != cmd.proc.pid]
    assert any("uvicorn" in n for n in names) and any("forkserver" in n for n in names), names
    os.kill(cmd.proc.pid, signal.SIGKILL)  # the command's own process only: its children are not signalled
    cmd.proc.wait()
    time.sleep(10)
    alive = [line[:120] for line in cmd.command_lines().values()]  # a worker forked after the look above too
    assert alive == [], f"alive 10 s after kill -9 of the command: {alive}"


def test_sigint_to_evaluates_group_with_fault_workers_is_one_line_and_no_child(suite) -> None:  # type: ignore[no-untyped-def]
    config, _root, env = suite
    cmd = Command(env, "evaluate", "--config", str(config), "--run", SUITE)
    cmd.wait_for(lambda: workers_run(cmd), "the fault workers")
    code, took = cmd.signal_group(signal.SIGINT)
    assert (code, took <= 5) == (130, True), (code, took, cmd.said_since())
    time.sleep(2)
    assert cmd.session() == [], f"left running: {[p.cmdline() for p in cmd.session()]}"
    # the suite run is complete, evaluate opens no run of its own: nothing to mark; workers and the
    # resource tracker say nothing
    assert cmd.said_since() == ["interrupted (SIGINT)\n"], cmd.said_since()[:20]


@pytest.mark.parametrize("group", [False, True], ids=["kill-9-of-the-command", "sigint-to-the-group"])
def test_a_fork_server_still_importing_ends_with_the_command(suite, group: bool) -> None:  # type: ignore[no-untyped-def]
    """The command dies as soon as its fork server exists, most often while the server still
    imports (seconds on a loaded 2-core CI machine, where a server that armed its parent-death
    signal only after its imports outlived the command, and forked a worker for the dead
    command's request): the server and any worker end with the command, at once."""
    config, _root, env = suite
    cmd = Command(env, "evaluate", "--config", str(config), "--run", SUITE)
    cmd.wait_for(lambda: bool(fork_servers(cmd)), "the fork server")
    if group:
        assert cmd.signal_group(signal.SIGINT)[0] == 130
    else:
        os.kill(cmd.proc.pid, signal.SIGKILL)
        cmd.proc.wait()
    time.sleep(1)  # less than the server's imports take even on an idle machine (2-3 s here)
    alive = [line[:120] for line in cmd.command_lines().values() if "resource_tracker" not in line]
    assert alive == [], f"alive 1 s after the command ended: {alive}"
