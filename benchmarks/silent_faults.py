"""Benchmark: the silent faults, detected by the demo suite judged text-only vs trace-aware.

    python benchmarks/silent_faults.py [--keep DIR] [--settings false,true] [--as-configured]

A *silent* fault (catalogs/faults/retail-silent, docs/faults.md "Silent faults") leaves the
reference agent's replies word for word the original's while its tool calls break the policy. The
benchmark builds the demo's suite once (`adat demo`, run `demo`, offline/heuristic provider) and,
for each setting of the run config's `judge.use_tool_trace` (false: the judge reads the replies
only; true: it is given the tool trace and the process checks run), executes the same tests on the
original agent (`adat run-suite --suite demo`), then audits that run and regresses it on the
silent pack (`ADAT_FAULT_DIR=catalogs/faults/retail-silent adat evaluate`) and on the shipped pack
(`adat regress`). Every step is the CLI a user runs; the figures are `sql/metrics/fault_detection.sql`
over the resulting runs. It prints, per silent fault, detected text-only vs trace-aware, the
totals, and the shipped pack's detected / seeded under both settings.

Exits 2 in one line when this tree's run config has no `judge.use_tool_trace` (before the process
checks of issue 27 are merged); `--as-configured` then runs one column with the demo config as it
is. Exits 1 when a target is missed: trace-aware detects at least 5/6 of the silent faults, and
the shipped pack's detection does not drop from text-only to trace-aware.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
SILENT_PACK = REPO / "catalogs" / "faults" / "retail-silent"
SHIPPED_PACK = REPO / "catalogs" / "faults" / "retail"
SWITCH = "judge.use_tool_trace"
REACH_SQL = Path(__file__).with_name("silent_faults_reach.sql")
SUITE = "demo"  # the demo's pipeline run: the suite both settings execute
LABELS = {"false": "text-only", "true": "trace-aware", "configured": "as configured"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; a bad value is argparse's one-line error (exit 2)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="use (and keep) this data directory; a demo suite or "
                                                  "setting run already in it is reused")
    parser.add_argument("--settings", type=_settings, default=["false", "true"],
                        help=f"comma-separated values of {SWITCH} to run, in order (default: false,true)")
    parser.add_argument("--as-configured", action="store_true",
                        help=f"one column with the demo config as it is, without setting {SWITCH} (a tree "
                             "without the switch)")
    args = parser.parse_args(argv)
    if args.as_configured:
        args.settings = ["configured"]
    return args


def _settings(text: str) -> list[str]:
    values = [v.strip().lower() for v in text.split(",") if v.strip()]
    if not values or any(v not in ("false", "true") for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"{text!r}: give false, true or false,true")
    return values


def require_switch(model: Any = None) -> None:
    """SystemExit(2) with one line unless the run config ``model`` (default: adat's RunConfig)
    accepts ``judge.use_tool_trace``."""
    from pydantic import ValidationError

    from adat.config import RunConfig

    section, name = SWITCH.split(".")
    try:
        (model or RunConfig).model_validate({section: {name: False}})
    except ValidationError:
        print(f"benchmarks/silent_faults.py: this tree's run config has no field {SWITCH} (the switch of "
              "issue 27's process checks); fix: merge the process-checks branch, or pass --as-configured",
              file=sys.stderr)
        raise SystemExit(2) from None


def config_for(setting: str, data: Path) -> dict[str, Any]:
    """The demo config writing under ``data``, with ``judge.use_tool_trace`` set to ``setting``
    ('configured': left as the demo config has it)."""
    from adat.config import demo_config_path

    doc = yaml.safe_load(demo_config_path().read_text(encoding="utf-8"))
    doc["data_dir"] = str(data)
    doc.pop("run_id", None)
    if setting != "configured":
        section, name = SWITCH.split(".")
        doc.setdefault(section, {})[name] = setting == "true"
    return doc


def _adat(*args: str, fault_dir: Path | None = None) -> None:
    adat = shutil.which("adat", path=str(Path(sys.executable).parent)) or "adat"
    env = {**os.environ, **({"ADAT_FAULT_DIR": str(fault_dir)} if fault_dir else {})}
    proc = subprocess.run([adat, *args], cwd=REPO, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        sys.exit(f"adat {' '.join(args[:1])} failed with exit code {proc.returncode}")


def _has_run(data: Path, run_id: str) -> bool:
    """Whether ``run_id`` already has its tests in ``data`` (the demo's suite, or a setting's
    run-suite copy of it), the check `adat run-suite` itself makes."""
    from adat.stages.execution import has_rows

    return data.is_dir() and has_rows(data, "tests", run_id)


def run_setting(setting: str, data: Path) -> str:
    """The suite executed, audited and regressed on both packs with ``setting``; its run id."""
    run_id = f"silent-{LABELS[setting].replace(' ', '-')}"
    path = data.parent / f"{run_id}.yaml"
    path.write_text(yaml.safe_dump(config_for(setting, data), sort_keys=False), encoding="utf-8")
    if not _has_run(data, run_id):
        _adat("run-suite", "-c", str(path), "--suite", SUITE, "--run-id", run_id)
    _adat("evaluate", "-c", str(path), "--run", run_id, fault_dir=SILENT_PACK)
    _adat("regress", "-c", str(path), "--run", run_id, fault_dir=SHIPPED_PACK)
    return run_id


def detection(data: Path, run_id: str) -> dict[str, str]:
    """Fault id -> its cell: 'detected', 'missed' (activated, not detected) or 'not reached' (the
    suite never activated it), with detecting / detectable tests (sql/metrics/fault_detection.sql,
    and silent_faults_reach.sql beside this file: tests that passed on the original and whose
    faulty execution the auditor finds not complied, caused by the fault)."""
    from adat.config import adat_home
    from adat.warehouse import build_catalog, declared_params, run_query

    db = build_catalog(data, adat_home() / "sql")

    def rows(sql: Path) -> dict[str, dict[str, Any]]:
        found = run_query(db, sql, {**dict.fromkeys(declared_params(sql)), "run_id": run_id}).to_pylist()
        return {r["fault"]: r for r in found}

    detected = rows(adat_home() / "sql" / "metrics" / "fault_detection.sql")
    reach = rows(REACH_SQL)
    cells = {}
    for fault, r in detected.items():
        status = "detected" if r["detected"] else "missed" if r["activated"] else "not reached"
        cells[fault] = f"{status} {r['detecting_tests'] or 0}/{reach.get(fault, {}).get('detectable_tests', 0)}"
    return cells


def report(columns: dict[str, dict[str, str]], silent: list[str], shipped: list[str]) -> list[str]:
    """The side-by-side table and the target lines (a line starting 'MISS' is a missed target)."""
    names = list(columns)
    width = max(len(f) for f in silent) + 2
    lines = [f"  {'silent fault':<{width}}" + "".join(f"{n:>20}" for n in names)]
    for fault in silent:
        lines.append(f"  {fault:<{width}}" + "".join(f"{columns[n].get(fault, 'not run'):>20}" for n in names))
    total = {n: sum(_detected(columns[n].get(f)) for f in silent) for n in names}
    seeded = {n: sum(_detected(columns[n].get(f)) for f in shipped) for n in names}
    lines.append(f"  {'silent, detected':<{width}}" + "".join(f"{f'{total[n]} / {len(silent)}':>20}" for n in names))
    lines.append(f"  {'shipped, detected':<{width}}" + "".join(f"{f'{seeded[n]} / {len(shipped)}':>20}"
                                                              for n in names))
    lines.append("  (cell: status, then tests detecting / tests the auditor finds detectable: passed on the "
                 "original, not complied and caused by the fault on the faulty agent)")
    if "trace-aware" in columns:
        need = math.ceil(len(silent) * 5 / 6)
        ok = total["trace-aware"] >= need
        lines.append(f"  {'ok  ' if ok else 'MISS'} trace-aware detects ≥ {need} of {len(silent)} silent faults: "
                     f"{total['trace-aware']}")
    if {"text-only", "trace-aware"} <= set(columns):
        ok = seeded["trace-aware"] >= seeded["text-only"]
        lines.append(f"  {'ok  ' if ok else 'MISS'} shipped pack's detection does not drop: "
                     f"{seeded['text-only']} -> {seeded['trace-aware']} of {len(shipped)}")
    return lines


def _detected(cell: str | None) -> bool:
    return bool(cell) and str(cell).startswith("detected")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.settings != ["configured"]:
        require_switch()
    from adat_reference.agent import fault_ids

    data = (args.keep or Path(tempfile.mkdtemp(prefix="adat-silent-")) / "data").resolve()
    os.environ.setdefault("ADAT_CACHE_DIR", str(data / "cache"))
    if not _has_run(data, SUITE):
        _adat("demo", "--data-dir", str(data))
    columns = {LABELS[s]: detection(data, run_setting(s, data)) for s in args.settings}
    silent, shipped = fault_ids(SILENT_PACK), fault_ids(SHIPPED_PACK)
    print(f"silent faults on the demo suite (run {SUITE!r}, offline/heuristic provider); data: {data}")
    lines = report(columns, silent, shipped)
    print("\n".join(lines))
    return 1 if any(line.lstrip().startswith("MISS") for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
