"""Benchmark: what the Prefect-internals fast paths of the fault runner save, per submitted task.

    python benchmarks/prefect_fast_paths.py [--repeat 30]

``flows/_fault_runner.py`` keeps two overrides of Prefect's private ``ProcessPoolTaskRunner`` code
(pinned to the Prefect version in ``flows/_prefect_internals.py``). This measures, in one process
with Prefect's default settings, the work each one removes:

* **settings serialized once per runner** (``_SerializedOnce``): Prefect serializes the whole
  settings context for every task it submits, in the flow process, while the workers run;
* **a worker keeps the flow's settings and one API client** (``warm_worker``): Prefect's worker
  hydrates the serialized settings and builds a sync API client for every task it runs.

Prints milliseconds per task for each (median of ``--repeat``) and what that is for the demo's
evaluate (19 fault regressions, one task each); exits non-zero when either saves less than
:data:`KEEP_MS` per task — then the override no longer earns its keep: remove it (and its line
in ``RECHECK``). No server is contacted: building a client does not connect.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

DEMO_REGRESSIONS = 19
#: below this saving per task an override of Prefect's private code is not worth re-checking at each upgrade
KEEP_MS = 5.0


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()  # first call: imports and caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    import prefect
    from prefect.client.orchestration import get_client
    from prefect.context import SettingsContext
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: "http://127.0.0.1:9/api"}):
        context = SettingsContext.get()
        assert context is not None
        serialized = context.serialize()

        def hydrate() -> None:
            with SettingsContext(**serialized), get_client(sync_client=True):
                pass

        rows = {"serialize the settings (flow process, per submit)": _median_ms(context.serialize, args.repeat),
                "hydrate settings + build a sync client (worker, per task)": _median_ms(hydrate, args.repeat)}
    print(f"Prefect {prefect.__version__}, median of {args.repeat}")
    for name, ms in rows.items():
        verdict = "keep" if ms >= KEEP_MS else f"DROP (< {KEEP_MS:g} ms)"
        print(f"  {name:<60} {ms:7.1f} ms   x{DEMO_REGRESSIONS} = {ms * DEMO_REGRESSIONS / 1000:.2f} s   {verdict}")
    raise SystemExit(0 if all(ms >= KEEP_MS for ms in rows.values()) else 1)


if __name__ == "__main__":
    main()
