"""Benchmark: the regression phase of `adat demo --evaluate`, fault regressions serial vs concurrent.

    python benchmarks/evaluation_fanout.py [--sessions N] [--n N] [--workers 2] [--keep DIR]

Builds the demo's suite once (the `pipeline` flow with the demo config, offline/heuristic
provider, under an ephemeral Prefect API) and audits it (the `evaluate` flow), then runs the
`regress` flow on every seeded fault twice, forcing the regression stages to recompute each time
(``refresh=["original-replays"]``: the original agent's replays and every fault's regression).
Every flow is called as the CLI calls it (``call_flow``: no flow-run heartbeats):

* **serial** — one fault after another in the flow's process (a one-thread task runner);
* **concurrent** — the flow's own runner (``flows.regress.fault_runner``): one worker process
  per core, forked from the process's fork server (``flows/_fault_runner.py``), each fault's
  regression a mapped task ``regression-<fault id>`` writing only its own partition. As in
  ``adat demo --evaluate``, the evaluate flow started that server (its audit and labels run
  before its regressions, so the server is warm by then); the regression phase forks from it.

Both rows are printed side by side with the ratio; exits non-zero unless concurrent ≤ 0.6 ×
serial and both give the same execution labels. ``--breakdown`` also prints, per row, where the
time went, from the task runs the Prefect API recorded: the flow's part before the first
regression starts, the regressions' span and summed run time, the workers' busy share of the span,
and the mean pause between two regressions of a worker.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, help="discovery sessions (default: the demo config's)")
    parser.add_argument("--n", type=int, help="generation.n (default: the demo config's)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="worker processes (default: cores)")
    parser.add_argument("--keep", type=Path, help="use (and keep) this data directory")
    parser.add_argument("--breakdown", action="store_true", help="print where each row's time went (task runs)")
    args = parser.parse_args()

    from adat.config import (
        HF_OFFLINE_ENV,
        PREFECT_ENV_DEFAULTS,
        apply_env_defaults,
        demo_config_path,
        load_run_config,
    )

    apply_env_defaults(PREFECT_ENV_DEFAULTS)
    apply_env_defaults(HF_OFFLINE_ENV)
    data = args.keep or Path(tempfile.mkdtemp(prefix="adat-fanout-")) / "data"
    os.environ.setdefault("ADAT_CACHE_DIR", str(data / "cache"))
    from prefect.task_runners import ThreadPoolTaskRunner
    from prefect.testing.utilities import prefect_test_harness

    from adat.cli.flow_loader import call_flow, load_flow
    from adat.evaluation.evaluation_steps import evaluation_faults
    from adat.warehouse import read_records
    from flows.regress import fault_runner

    cfg = load_run_config(demo_config_path())
    cfg = cfg.model_copy(update={
        "run_id": "fanout", "data_dir": str(data),
        "discovery": cfg.discovery.model_copy(update={"sessions": args.sessions or cfg.discovery.sessions}),
        "generation": cfg.generation.model_copy(update={"n": args.n or cfg.generation.n})})
    faults = evaluation_faults(cfg)
    with prefect_test_harness(server_startup_timeout=120):
        start = time.perf_counter()
        run_id = call_flow(load_flow("pipeline"), config=cfg)
        call_flow(load_flow("evaluate"), config=cfg, suite_run_id=run_id)  # audit, labels; warms every cache
        setup = time.perf_counter() - start
        regress = load_flow("regress")
        timings: dict[str, float] = {}
        labels: dict[str, list[tuple[str, str, str]]] = {}
        modes = {"serial": regress.with_options(task_runner=ThreadPoolTaskRunner(max_workers=1)),
                 "concurrent": regress.with_options(task_runner=fault_runner(args.workers))}
        for mode, flow in modes.items():
            start = time.perf_counter()
            call_flow(flow, config=cfg, suite_run_id=run_id, faults=faults, refresh=["original-replays"])
            timings[mode] = time.perf_counter() - start
            if args.breakdown:
                print(f"  {mode}: {breakdown(1 if mode == 'serial' else args.workers)}")
            labels[mode] = sorted((e.execution_id, e.agent_variant, e.label)
                                  for e in read_records(data, "execution_labels", run_id=run_id)
                                  if e.agent_variant != "original")
    ratio = timings["concurrent"] / timings["serial"]
    tests = len(read_records(data, "tests", run_id=run_id))
    print(f"`adat demo --evaluate` regression phase: {len(faults)} faults, suite of {tests} tests "
          f"(run {run_id}, offline/heuristic; setup {setup:.0f} s)")
    print(f"  serial      (1 thread)          {timings['serial']:7.1f} s")
    print(f"  concurrent  ({args.workers} processes)       {timings['concurrent']:7.1f} s")
    print(f"  concurrent / serial             {ratio:7.2f}   (target ≤ 0.60)")
    same = labels["serial"] == labels["concurrent"]
    print(f"  same execution labels: {'yes' if same else 'NO'} ({len(labels['serial'])} on faulty variants)")
    print(f"  machine: {os.cpu_count()} cores; data: {data}")
    ok = ratio <= 0.6 and same
    print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


def breakdown(workers: int) -> str:
    """Where the last flow run's time went, from its task runs in the Prefect API."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    from prefect.client.schemas.sorting import FlowRunSort

    with get_client(sync_client=True) as client:
        run = client.read_flow_runs(sort=FlowRunSort.START_TIME_DESC, limit=1)[0]
        tasks = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run.id])), limit=200)
    spans = sorted(((t.start_time - run.start_time).total_seconds(), (t.end_time - run.start_time).total_seconds())
                   for t in tasks if t.name.startswith("regression-") and t.start_time and t.end_time)
    if not spans or run.start_time is None:
        return "no regression task runs recorded"
    first, last = spans[0][0], max(end for _, end in spans)
    busy = sum(end - begin for begin, end in spans)
    pauses = (workers * (last - first) - busy) / max(1, len(spans) - workers)
    return (f"before the first regression {first:.2f} s; {len(spans)} regressions over {last - first:.2f} s, "
            f"{busy:.2f} s run time, busy {busy / (workers * (last - first)):.0%} of {workers} worker(s); "
            f"mean pause between two regressions of a worker {pauses:.3f} s")


if __name__ == "__main__":
    sys.exit(main())
