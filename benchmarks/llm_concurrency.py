"""Benchmark: plain test generation with one LLM call at a time vs ``llm.concurrency`` calls.

    python benchmarks/llm_concurrency.py [--statements 40] [--latency 0.1] [--concurrency 4]

The statements are real: discovery, extraction and grounding of the `adat demo` config run
in-process against the reference agent with the offline/heuristic provider (no network, about
1 s). Plain generation then runs through the real LLMClient and the real stage, with the
generator role answered by offline/heuristic behind a fixed simulated latency (the seconds a
real endpoint takes per call), once with ``llm.concurrency = 1`` and once with ``--concurrency``.
Prints both wall times and their ratio; exits non-zero when the two runs' tests differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from adat.config import RunConfig, demo_config_path, load_run_config
from adat.llm.client import LLMClient
from adat.llm.providers.provider_registry import ProviderRegistry, default_registry
from adat.llm.types import LLMRequest, LLMResponse, Provider
from adat.records import Statement, TestCase, Trace

RUN = "bench-llm-concurrency"


class SimulatedLatency:
    """A provider answering like offline/heuristic, ``latency_s`` seconds after each request."""

    cacheable = False

    def __init__(self, latency_s: float) -> None:
        from adat_offline.provider import OfflineHeuristicProvider

        self.inner = OfflineHeuristicProvider()
        self.latency_s = latency_s

    def complete(self, request: LLMRequest) -> LLMResponse:
        time.sleep(self.latency_s)  # sleep releases the GIL, as waiting on a socket does
        return self.inner.complete(request)


def demo_statements(cfg: RunConfig) -> tuple[list[Statement], list[Trace]]:
    """Grounded, ranked statements and the discovery traces of an offline demo-config run."""
    from adat.stages.discovery import discover
    from adat.stages.statements import extract_statements, ground_statements
    from adat.targets.target_factory import build_target

    client = LLMClient(cfg, RUN)
    traces = discover(cfg, client, build_target(cfg.target, cfg), RUN)
    statements = ground_statements(cfg, client, extract_statements(cfg, client, traces, RUN))
    return statements, traces


def timed_generation(cfg: RunConfig, concurrency: int, latency_s: float, statements: list[Statement],
                     traces: list[Trace]) -> tuple[float, list[TestCase], int]:
    """Wall time, tests and provider calls of plain generation at ``concurrency``."""
    from adat.stages.statements import generate_plain_tests

    run_cfg = cfg.model_copy(deep=True)
    run_cfg.llm.concurrency = concurrency
    run_cfg.models.generator = "simulated/heuristic"
    run_cfg.llm.prices_usd_per_mtok["simulated/heuristic"] = (0.0, 0.0)  # free, and no "no price" warning
    registry: ProviderRegistry = default_registry()

    def simulated(model: str, _: RunConfig) -> Provider:
        return SimulatedLatency(latency_s)

    registry.register("simulated", simulated)
    client = LLMClient(run_cfg, RUN, registry=registry)
    start = time.perf_counter()
    tests, _ = generate_plain_tests(run_cfg, client, statements, traces, RUN)
    return time.perf_counter() - start, tests, client.provider_calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=40, help="plain tests to generate (top-n statements)")
    parser.add_argument("--latency", type=float, default=0.1, help="simulated seconds per LLM call")
    parser.add_argument("--concurrency", type=int, default=4, help="llm.concurrency of the second run")
    args = parser.parse_args()

    cfg = load_run_config(demo_config_path())
    cfg.llm.cache = False  # every call must reach the (simulated) endpoint
    cfg.generation.n = args.statements
    statements, traces = demo_statements(cfg)
    grounded = sum(1 for s in statements if s.grounded)
    if grounded < args.statements:
        print(f"the demo run grounded only {grounded} statements; ask for --statements {grounded} or fewer")
        return 1

    serial_s, serial_tests, serial_calls = timed_generation(cfg, 1, args.latency, statements, traces)
    pooled_s, pooled_tests, pooled_calls = timed_generation(cfg, args.concurrency, args.latency, statements,
                                                            traces)
    same = [t.model_dump() for t in serial_tests] == [t.model_dump() for t in pooled_tests]

    print(f"plain generation of {args.statements} statements (offline demo run), "
          f"{args.latency * 1000:.0f} ms simulated latency per call")
    print(f"  llm.concurrency = 1   {serial_s:6.2f} s   {serial_calls} calls, {len(serial_tests)} tests")
    print(f"  llm.concurrency = {args.concurrency:<3d} {pooled_s:6.2f} s   {pooled_calls} calls, "
          f"{len(pooled_tests)} tests")
    print(f"  speed-up              {serial_s / pooled_s:6.2f}x  (ideal {args.concurrency}x)")
    print(f"  same tests in the same order: {'yes' if same else 'NO'}")
    print(f"  machine: {os.cpu_count()} cores")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
