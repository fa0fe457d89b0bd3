"""A writer compacting its parts, a catalog builder and a read-only analyst on one data dir at once.

Issue 30 item 4's isolated race: the writer appends and compacts run ``w``'s parts
(``write_records(..., replace=True)``), the builder rebuilds the catalog and runs one ``adat sql``
query in a loop, and the reader holds one read-only DuckDB connection to ``adat.duckdb`` and counts
every view in a loop (``tests/support/warehouse_race.py``). Prints each role's successes and
errors; exits 1 when any role saw an error.

    python benchmarks/warehouse_race.py [--seconds 60]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from tests.support.warehouse_race import race

    with tempfile.TemporaryDirectory() as tmp:
        results = race(Path(tmp) / "data", REPO / "sql", args.seconds)
    failed = 0
    for role, (done, errors) in results.items():
        count = sum(errors.values())
        failed += count
        print(f"{role:8} {done:6} ok  {count:4} errors")
        for line, n in sorted(errors.items(), key=lambda item: -item[1]):
            print(f"           {n:4} x {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
