"""``adat compare``, ``adat baselines`` and ``adat ablation``: the paper's comparisons (RQ1–RQ4).

Registered on the main app in :mod:`adat.cli.main`. The flows run the way ``adat run`` runs the
pipeline: imported from the ``flows`` package, on the running Prefect server if there is one
(``adat server``), else on Prefect's temporary one.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from adat.cli.app import ConfigDataDir, command_config, fail, terminal_console, warehouse_root
from adat.cli.flow_loader import run_flow as _run_flow
from adat.config import RunConfig, check_run_id

console = terminal_console()

ConfigFile = Annotated[Path, typer.Option("--config", "-c", help="Run-config YAML (models, target, budgets).")]
SourceRun = Annotated[str, typer.Option("--from", help="Run whose discovery traces (and statements) to reuse.")]


def _config(config: Path, data_dir: Path | None, source: str, command: str,
            selectors: list[str] | None = None) -> RunConfig:
    """The run config with ``--data-dir`` applied, after every check that needs no flow (the roles
    ``command`` uses are named; ``--from`` names a run of this data dir that ran discovery, checked
    before the flow writes a failed run row; preflight)."""
    from adat.engine.preflight import preflight
    from adat.warehouse import read_records

    cfg = command_config(config, data_dir, command, selectors)
    check_run_id(source, field="--from")
    warehouse_root(cfg.data_path())
    if not read_records(cfg.data_path(), "traces", run_id=source):
        fail(f"run {source!r} has no discovery traces in {cfg.data_path()}", field="--from",
             fix="pass the id of a run that ran discovery (adat run; see `adat sql stg_runs`)")
    preflight(cfg)
    return cfg


def compare(
    run_ids: Annotated[list[str], typer.Argument(help="Runs to compare (pipeline, baseline, ablation runs).")],
    fmt: Annotated[str, typer.Option("--format", help="table | csv")] = "table",
    table: Annotated[str | None, typer.Option("--table", help="Only this table: rq1, rq2_runs, rq2, rq3, rq4.")] = None,
    data_dir: ConfigDataDir = None,
) -> None:
    """Print tables shaped like the paper's Tables 2–5 for RUN_IDs, from the warehouse's SQL metrics.

    A value a run does not have (not audited, no groupings, no faults run) prints as '—'.
    """
    from adat.compare import compare_tables, render_tables

    if fmt not in ("table", "csv"):
        fail(f"unknown format {fmt!r}", field="--format", fix="use table or csv")
    root = warehouse_root(data_dir)
    for run_id in run_ids:
        check_run_id(run_id, field="RUN_IDS")
    text = render_tables(compare_tables(root, run_ids), fmt, only=table)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")  # verbatim: CSV must not be re-wrapped


def baselines(config: ConfigFile, source: SourceRun, data_dir: ConfigDataDir = None) -> None:
    """Run the AgentEval and direct baselines on the discovery traces of run --from (one new run each)."""
    cfg = _config(config, data_dir, source, "baselines")
    runs = _run_flow("baselines", config=cfg, discovery_run_id=source)
    assert isinstance(runs, dict)
    for method, run_id in runs.items():
        console.print(f"{method:<10} run {run_id}", markup=False)
    console.print(f"compare: adat compare {source} {' '.join(runs.values())}", markup=False)


def ablation(
    config: ConfigFile,
    source: SourceRun,
    selectors: Annotated[str, typer.Option("--selectors", help="Comma-separated selector names, or 'all'.")],
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Runs per selector (seeds seed, seed+1, …).")] = 1,
    data_dir: ConfigDataDir = None,
) -> None:
    """Test transformation with each selector on the statements of run --from (one new run each)."""
    from adat.baselines.baseline_steps import check_selectors, selector_names

    names = selector_names() if selectors.strip() == "all" else [s.strip() for s in selectors.split(",") if s.strip()]
    names = check_selectors(names)
    cfg = _config(config, data_dir, source, "ablation", names)
    runs = _run_flow("ablation", config=cfg, discovery_run_id=source, selectors=names, repeats=repeats)
    assert isinstance(runs, dict)
    for name, run_ids in runs.items():
        console.print(f"{name:<15} {' '.join(run_ids)}", markup=False)
    every = [r for ids in runs.values() for r in ids]
    console.print(f"compare: adat compare {' '.join(every)} --table rq2", markup=False)
