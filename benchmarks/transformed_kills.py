"""Benchmark: the wording share of a demo's transformed tests and what they detect on their own.

    python benchmarks/transformed_kills.py DATA_DIR [DATA_DIR ...] [--check]

Each DATA_DIR is the data directory of a finished ``adat demo --evaluate`` (``python
benchmarks/demo_time.py --evaluate --keep DIR`` leaves one). Prints, per directory, side by side:
transformed tests, how many are rewordings (``wording-paraphrase``) and how many any ``wording-*``
instruction wrote, and the seeded faults detected by the plain tests alone, the transformed tests
alone and all tests (benchmarks/transformed_kills.sql over the warehouse's own views). With
``--check`` it exits 1 unless the last directory keeps issue 28's bounds against the first: at
most 25 % rewordings and at least as many faults detected by the transformed tests alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
QUERY = Path(__file__).with_suffix(".sql")


def figures(data: Path) -> dict[str, dict[str, Any]]:
    """The query's rows of the demo run in ``data``, by test kind."""
    from adat.config import adat_home
    from adat.warehouse import build_catalog, run_query

    sys.path.insert(0, str(REPO))
    from tests.support.demo_figures import demo_run_id

    db = build_catalog(data, adat_home() / "sql")
    rows = run_query(db, QUERY, {"run_id": demo_run_id(data)}).to_pylist()
    return {r["kind"]: r for r in rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+", help="data directories of finished demo --evaluate runs")
    parser.add_argument("--check", action="store_true", help="hold the last directory to issue 28's bounds")
    args = parser.parse_args()
    runs = [(d, figures(d)) for d in args.data]
    width = max(len(str(d)) for d, _ in runs)
    print(f"{'data dir':<{width}}  transformed  rewordings  wording-*  detected: plain  transformed  all")
    for data, f in runs:
        t = f.get("transformed", {})
        share = (t.get("rewordings") or 0) / max(t.get("tests") or 0, 1)
        print(f"{str(data):<{width}}  {t.get('tests', 0):11d}  {t.get('rewordings', 0):4d} ({share:4.0%})"
              f"  {t.get('wording_tests', 0):9d}  {f.get('plain', {}).get('detected', 0):15d}"
              f"  {t.get('detected', 0):11d}  {f.get('all', {}).get('detected', 0):3d}")
    for data, f in runs:
        print(f"{data}: transformed tests alone detect {f.get('transformed', {}).get('detected_faults')}")
    if not args.check:
        return 0
    first, last = runs[0][1].get("transformed", {}), runs[-1][1].get("transformed", {})
    share = (last.get("rewordings") or 0) / max(last.get("tests") or 0, 1)
    missed = [m for m, bad in ((f"rewordings {share:.0%} > 25 %", share > 0.25),
                               (f"transformed tests detect {last.get('detected', 0)} < {first.get('detected', 0)}",
                                (last.get("detected") or 0) < (first.get("detected") or 0))) if bad]
    for m in missed:
        print(f"MISSED: {m}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
