"""The fault regressions' process pool (flows/_fault_runner.py): forked warm, with the flow's environment.

Real Prefect flows under the session's ephemeral API; the tasks report from inside their worker.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys

import pytest
from prefect import flow, task

from flows._fault_runner import WARM_MODULE, FaultRunner, prestart_workers
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(),
                                reason="this platform has no fork server (Windows): workers are spawned")


@task
def where(_: int) -> dict[str, object]:
    return {"process": multiprocessing.current_process().name, "pid": os.getpid(),
            "probe": os.environ.get("ADAT_TEST_FAULT_RUNNER_PROBE"),
            "warm": WARM_MODULE in sys.modules, "offline": "adat_offline.provider" in sys.modules}


@task
def client_and_settings(_: int) -> dict[str, object]:
    from prefect.client.orchestration import get_client
    from prefect.settings import get_current_settings

    client = get_client(sync_client=True)  # what the task engine and the task's own calls use
    seen = getattr(client, "adat_test_seen", False)
    client.adat_test_seen = True
    settings = get_current_settings()
    return {"pid": os.getpid(), "seen": seen, "api": settings.api.url, "retries": settings.tasks.default_retries}


def env_of(name: str) -> str | None:
    return os.environ.get(name)


def run_in_pool(cfg, tasks: int) -> list[dict[str, object]]:
    @flow(task_runner=FaultRunner(max_workers=2))
    def probe() -> list[dict[str, object]]:
        prestart_workers(cfg)
        return [f.result() for f in [where.submit(i) for i in range(tasks)]]

    return probe()


@pytest.mark.slow
def test_workers_are_forked_warm_and_see_the_flow_environment(prefect_harness, tmp_path, monkeypatch):
    cfg = small_demo_config(tmp_path / "data", sessions=2, n=2)  # offline/heuristic roles
    monkeypatch.setenv("ADAT_TEST_FAULT_RUNNER_PROBE", "first")
    first = run_in_pool(cfg, 4)
    # a later flow's pool forks from the same, already running server; the variable changed
    # since that server started, and each worker must see the value the flow process has now
    monkeypatch.setenv("ADAT_TEST_FAULT_RUNNER_PROBE", "second")
    second = run_in_pool(cfg, 4)
    for rows, probe in ((first, "first"), (second, "second")):
        assert {r["process"].split("-")[0] for r in rows} == {"ForkServerProcess"}, rows
        assert {r["probe"] for r in rows} == {probe}
        assert all(r["warm"] and r["offline"] for r in rows), rows  # imported before the first task
        assert os.getpid() not in {r["pid"] for r in rows}
    assert not {r["pid"] for r in first} & {r["pid"] for r in second}  # each flow run its own workers


def test_a_forked_worker_has_the_environment_of_the_pool_not_of_the_fork_server(monkeypatch):
    from multiprocessing import forkserver

    from flows._fault_runner import fork_server

    fork_server([WARM_MODULE])
    forkserver.ensure_running()  # the server's environment is fixed from here on
    monkeypatch.setenv("ADAT_TEST_FAULT_RUNNER_LATE", "set after the server started")
    monkeypatch.delenv("HOME", raising=False)  # the server has it, the flow process no longer does
    with FaultRunner(max_workers=1) as runner:
        pool = runner._executor
        assert pool is not None
        late = pool.submit(env_of, "ADAT_TEST_FAULT_RUNNER_LATE").result(timeout=120)
        home = pool.submit(env_of, "HOME").result(timeout=120)
    assert late == "set after the server started"
    assert home is None


def sigint_ignored() -> bool:
    import signal

    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_forked_worker_ignores_ctrl_c_before_its_initializer_runs():
    """A worker forked while Ctrl-C reaches the process group must not die of KeyboardInterrupt
    before its initializer sets SIG_IGN: it inherits SIG_IGN from the fork server."""
    from concurrent.futures import ProcessPoolExecutor

    from flows._fault_runner import fork_server

    context = fork_server([WARM_MODULE])
    if context is None:
        pytest.skip("this platform has no fork server")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:  # no initializer
        assert pool.submit(sigint_ignored).result(timeout=120)


# Run in a child of the test process, as the fork server is a child of the flow process: reports,
# when the worker module first imports Prefect, the parent-death signal and SIGINT's handler.
_FIRST_SLOW_IMPORT = """
import ctypes, signal, sys
class Probe:
    def find_spec(self, name, path=None, target=None):
        if name == "prefect" and not hasattr(self, "said"):
            self.said = True
            armed = ctypes.c_int()
            ctypes.CDLL(None).prctl(2, ctypes.byref(armed), 0, 0, 0)  # PR_GET_PDEATHSIG
            print(armed.value, signal.getsignal(signal.SIGINT) is signal.SIG_IGN, flush=True)
sys.meta_path.insert(0, Probe())
import flows._fault_worker
"""


def _pool_child(code: str, parent: int) -> subprocess.CompletedProcess[str]:
    from flows._fault_guard import PARENT_ENV

    return subprocess.run([sys.executable, "-c", code], env={**os.environ, PARENT_ENV: str(parent)},
                          capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_the_fork_server_dies_with_the_flow_process_before_its_slow_imports():
    """Armed before Prefect is imported (seconds on a loaded machine): a flow killed meanwhile
    left the server importing, then forking a worker for the dead flow's request."""
    done = _pool_child(_FIRST_SLOW_IMPORT, os.getpid())
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(int(signal.SIGKILL)), "True"]


def test_a_pool_process_whose_flow_process_is_gone_ends_at_once():
    gone = subprocess.Popen(["true"])
    gone.wait()  # reaped: its pid names no process
    done = _pool_child("import flows._fault_worker; print('went on')", gone.pid)
    assert (done.returncode, done.stdout) == (1, "")


# A pool process made the fork server of the test process; its worker is orphaned (the server
# exits) before the worker arms its parent-death signal, while the flow process (the test) lives.
_ORPHANED_WORKER = """
import os, time
from flows import _fault_guard
_fault_guard.guard()
server = os.getpid()
if os.fork() == 0:
    while os.getppid() == server:
        time.sleep(0.01)
    from flows._fault_runner import _die_with_server
    _die_with_server()
    print("went on", flush=True)
os._exit(0)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_worker_whose_fork_server_died_before_it_armed_ends_though_the_flow_process_lives():
    """The server dies the moment the flow's main thread does; the flow's pid can still name a
    dying process then. A worker forked just before that checked the flow, found it, and was left
    running with its resource tracker (CI, kill -9 and Ctrl-C of ``adat evaluate``)."""
    done = _pool_child(_ORPHANED_WORKER, os.getpid())  # returns once the worker closed the pipe too
    assert (done.returncode, done.stdout) == (0, ""), done.stderr[-2000:]


# The flow process starts its fork server and exits; it stays a zombie (its parent, the test,
# has not reaped it) while the server, reparented, reaches its guard.
_SERVER_OF_A_ZOMBIE = """
import os, sys, time
while os.getppid() == int(os.environ[sys.argv[1]]):
    time.sleep(0.01)
import flows._fault_worker
print("went on", flush=True)
"""
_ZOMBIE_FLOW = """
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", *sys.argv[1:]], env={**os.environ, sys.argv[2]: str(os.getpid())})
os._exit(0)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="zombies are read from /proc")
def test_a_fork_server_whose_flow_process_exited_unreaped_ends_at_once():
    from flows._fault_guard import PARENT_ENV

    flow = subprocess.Popen([sys.executable, "-c", _ZOMBIE_FLOW, _SERVER_OF_A_ZOMBIE, PARENT_ENV],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert flow.stdout is not None
    out = flow.stdout.read()  # at its end both are done: the flow, unreaped, and its server
    assert out == "", flow.stderr.read()[-2000:] if flow.stderr else out  # type: ignore[union-attr]
    assert flow.wait(timeout=60) == 0


@pytest.mark.slow
def test_a_worker_keeps_one_api_client_and_runs_each_task_under_the_flows_settings(prefect_harness):
    from prefect.context import serialize_context
    from prefect.settings import PREFECT_TASK_DEFAULT_RETRIES, get_current_settings, temporary_settings

    @flow(task_runner=FaultRunner(max_workers=2))
    def probe() -> tuple[list[dict[str, object]], list[dict[str, object]], bool]:
        # what Prefect's pool sends with each task: the flow's settings, serialized once
        once = serialize_context()["settings_context"] is serialize_context()["settings_context"]
        same = [f.result() for f in [client_and_settings.submit(i) for i in range(6)]]
        with temporary_settings(updates={PREFECT_TASK_DEFAULT_RETRIES: 7}):  # not the pool's settings
            changed = [f.result() for f in [client_and_settings.submit(i) for i in range(2)]]
        return same, changed, once

    same, changed, once = probe()
    assert once
    api = get_current_settings().api.url
    assert {r["api"] for r in same + changed} == {api}
    assert {r["retries"] for r in same} == {get_current_settings().tasks.default_retries}
    assert {r["retries"] for r in changed} == {7}  # a task sent with other settings runs under them
    # 6 tasks on 2 workers: each worker's first task meets its client, every later one the same
    assert sum(bool(r["seen"]) for r in same) >= 6 - len({r["pid"] for r in same}), same


def test_the_number_of_fault_workers_is_prefects_process_pool_setting(monkeypatch):
    from prefect.settings import PREFECT_TASKS_RUNNER_PROCESS_POOL_MAX_WORKERS, temporary_settings

    from flows.regress import FAULT_WORKERS_CAP, fault_runner

    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert fault_runner()._max_workers == FAULT_WORKERS_CAP
    assert fault_runner(3)._max_workers == 3
    with temporary_settings(updates={PREFECT_TASKS_RUNNER_PROCESS_POOL_MAX_WORKERS: 6}):
        assert fault_runner()._max_workers == 6


def test_a_worker_starting_after_the_api_went_away_starts_quietly(monkeypatch):
    """Ctrl-C stops the command's temporary server while fault workers still start: the initializer
    must not raise (the pool would print 'Exception in initializer' and a traceback under the
    one line the interrupt prints). A task the worker still got reports its own error."""
    import socket

    from prefect.context import SettingsContext
    from prefect.settings import PREFECT_API_URL, temporary_settings

    import flows._fault_runner as fault_runner

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(fault_runner, "_worker_contexts", fault_runner.contextlib.ExitStack())
    monkeypatch.setattr(fault_runner.signal, "signal", lambda *_: None)  # keep this process's Ctrl-C
    monkeypatch.setattr(fault_runner.atexit, "register", lambda *_: None)  # and its exit code
    with temporary_settings({PREFECT_API_URL: f"http://127.0.0.1:{port}/api"}):
        context = SettingsContext.get()
        assert context is not None
        serialized = context.serialize()
    try:
        fault_runner.warm_worker(modules=(), environ=None, settings=serialized)
    finally:
        fault_runner._worker_contexts.close()
        monkeypatch.setattr(fault_runner, "_in_worker", False)
