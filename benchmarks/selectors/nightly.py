"""Benchmark: does the nightly history help the pair selector on the reference agent?

    python benchmarks/selectors/nightly.py                       # 3 nights, pooled, history on / off
    python benchmarks/selectors/nightly.py --nights 4 --selector adat2
    python benchmarks/selectors/nightly.py --same-seed           # every night discovers the same statements
    python benchmarks/selectors/nightly.py --set kappa=0.25

Runs `adat run` on a copy of `data/reference/demo.yaml` (offline/heuristic for every role, so
these are the offline stand-in's attempts, not a model's) as consecutive nights ``night0``,
``night1``, … in one data directory per arm, so each night's selector takes the earlier nights'
attempts as its history (the ``selection-priors`` stage). Arm ``history`` is the config as it
is; arm ``no history`` sets ``history_weight: 0`` for ``pooled`` (for the other selectors:
``prior_weight`` stays, and each night gets a fresh data directory). Night i uses seed
``--seed + i`` (its discovery differs from the last night's, as an LLM tester's would) unless
``--same-seed``. Prints per night and arm: attempts, not-applicable share and transformed tests;
then the totals over the nights after the first (night0 has no history in either arm).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "reference" / "demo.yaml"


def parse_setting(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--set {text!r}: use KEY=VALUE with KEY a selector setting (adat config show-defaults)")
    return key, yaml.safe_load(value)


def night_config(base: dict[str, Any], data: Path, night: int, seed: int, selector: str,
                 settings: dict[str, Any]) -> dict[str, Any]:
    cfg = {**base, "run_id": f"night{night}", "seed": seed, "data_dir": str(data)}
    cfg["selector"] = {**base.get("selector", {}), "name": selector, **settings}
    return cfg


def attempts_of(data: Path, run_id: str) -> tuple[int, int]:
    """(attempts, transformed tests) of one run, from the warehouse."""
    from adat.config import RunConfig
    from adat.warehouse.parquet import read_records

    rows = read_records(RunConfig(data_dir=str(data)).data_path(), "attempts", run_id=run_id)
    return len(rows), sum(1 for a in rows if getattr(a, "outcome", "") == "applicable")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--selector", default="pooled")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--same-seed", action="store_true", help="every night uses --seed")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a selector setting for both arms (repeatable)")
    parser.add_argument("--keep", type=Path, help="keep the data directories under this one")
    parser.add_argument("--arm", choices=["both", "history", "no-history"], default="both",
                        help="run one arm only (e.g. to measure another checkout's code with PYTHONPATH)")
    args = parser.parse_args()
    if args.nights < 2:
        raise SystemExit("--nights: at least 2 (the first night has no history)")
    base = yaml.safe_load(DEMO.read_text())
    settings = dict(parse_setting(s) for s in args.set)
    arms = {"history": dict(settings), "no history": {**settings, "history_weight": 0.0}}
    if args.arm != "both":
        arms = {arm: value for arm, value in arms.items() if arm == args.arm.replace("-", " ")}
    fresh_each_night = {"history": False, "no history": args.selector != "pooled"}
    root = args.keep or Path(tempfile.mkdtemp(prefix="adat-nightly-"))
    root.mkdir(parents=True, exist_ok=True)
    adat = shutil.which("adat", path=str(Path(sys.executable).parent)) or "adat"
    results: dict[str, list[tuple[int, int]]] = {arm: [] for arm in arms}
    started = time.perf_counter()
    for arm, arm_settings in arms.items():
        if args.selector != "pooled":
            arm_settings.pop("history_weight", None)
        for night in range(args.nights):
            data = root / arm.replace(" ", "-") / (f"n{night}" if fresh_each_night[arm] else "data")
            seed = args.seed + (0 if args.same_seed else night)
            cfg_path = root / f"{arm.replace(' ', '-')}-night{night}.yaml"
            cfg_path.write_text(yaml.safe_dump(night_config(base, data, night, seed, args.selector, arm_settings)))
            print(f"[{time.perf_counter() - started:6.0f} s] {arm}: night{night} (seed {seed})", file=sys.stderr, flush=True)
            proc = subprocess.run([adat, "run", "--config", str(cfg_path)], capture_output=True, text=True,
                                  env={**os.environ, "ADAT_CACHE_DIR": str(root / "cache")})
            if proc.returncode != 0:
                sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-4000:])
                return proc.returncode
            results[arm].append(attempts_of(data, f"night{night}"))
    print(f"selector {args.selector}, {args.nights} nights, seeds {'all ' + str(args.seed) if args.same_seed else f'{args.seed}..{args.seed + args.nights - 1}'}"
          f"{', ' + ', '.join(args.set) if args.set else ''}; offline/heuristic roles (not a model)")
    print("| night | " + " | ".join(f"{arm}: attempts | n/a % | tests" for arm in arms) + " |")
    print("|---|" + "---|---|---|" * len(arms))
    for night in range(args.nights):
        cells = []
        for arm in arms:
            a, t = results[arm][night]
            cells += [str(a), f"{100 * (a - t) / max(a, 1):.0f}", str(t)]
        print(f"| night{night} | " + " | ".join(cells) + " |")
    totals = {arm: sum(a for a, _ in results[arm][1:]) for arm in arms}
    ratio = f"; ratio {totals['history'] / max(totals['no history'], 1):.3f}" if len(totals) == 2 else ""
    print("attempts over nights 1.." + str(args.nights - 1) + ": "
          + ", ".join(f"{arm} {total}" for arm, total in totals.items()) + ratio)
    print(f"wall time {time.perf_counter() - started:.0f} s; data under {root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
