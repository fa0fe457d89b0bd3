"""``kill -9`` (or Ctrl-C to the group) of ``adat evaluate`` the moment its first fault worker exists.

The worst moment for the parent-death chain (docs/failures.md): the fork server is forking the
other workers, and a worker forked just before the command dies has not armed its own signal yet.
One small ``adat run`` is made once; then, ``--runs`` times, ``adat evaluate`` starts, is ended as
soon as the fork server has forked a worker, and every process of its session still alive
``--wait`` seconds later is counted (and killed). Prints one line a try and the total; exits 1 when
any process outlived its command.

    python benchmarks/kill_during_worker_start.py [--runs 10] [--sigint] [--wait 10]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = "suite-kill"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--sigint", action="store_true", help="SIGINT to the group instead of kill -9 of the command")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds after the command ended")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from tests.support.adat_command import Command, command_env, workers_run
    from tests.support.demo_config import small_demo_config, write_config

    left_total = 0
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        config = write_config(small_demo_config(tmp / "data", sessions=3, n=6, run_id=SUITE), tmp / "run.yaml")
        env = command_env(tmp)
        done = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                               str(config)], env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return 2
        for attempt in range(args.runs):
            cmd = Command(env, "evaluate", "--config", str(config), "--run", SUITE)
            cmd.wait_for(lambda cmd=cmd: workers_run(cmd), "the fault workers")
            if args.sigint:
                cmd.signal_group(signal.SIGINT)
            else:
                os.kill(cmd.proc.pid, signal.SIGKILL)
                cmd.proc.wait()
            time.sleep(args.wait)
            left = cmd.command_lines()
            left_total += bool(left)
            print(f"try {attempt + 1:3}: {len(left)} process(es) left", flush=True)
            for pid, line in left.items():
                print(f"          {line[:100]}", flush=True)
                with contextlib.suppress(ProcessLookupError):  # ended since the look
                    os.kill(pid, signal.SIGKILL)
    how = "SIGINT to the group" if args.sigint else "kill -9 of the command"
    print(f"{how}: {left_total} of {args.runs} tries left a process running {args.wait:g} s later")
    return 1 if left_total else 0


if __name__ == "__main__":
    raise SystemExit(main())
