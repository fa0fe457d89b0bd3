"""``adat suite bless | list | export | import``: suites as named, frozen artifacts (docs/suites.md).

Registered on the main app in :mod:`adat.cli.main`. None of them starts a flow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from adat.cli.app import AdatTyper, DataDir, fail, terminal_console, warehouse_root

console = terminal_console()
suite_app = AdatTyper(help="Bless, list, export and import frozen test suites (run-suite and the nightly run them).",
                      no_args_is_help=True)



def _name(name: str | None, config: Path | None) -> str:
    """``--name``, else the config file's name without its suffix (the nightly's default suite name)."""
    from adat.suites.suite_blessings import check_name

    if name:
        return check_name(name)
    if config is not None:
        return check_name(config.stem, field="--config")
    fail("no suite name", field="--name", fix="pass --name NAME, or --config FILE to name the suite after the config")


@suite_app.command("bless")
def bless(
    run: Annotated[str, typer.Argument(help="The run whose tests become the suite.")],
    name: Annotated[str | None, typer.Option("--name", help="Suite name (default: the --config file's name).")] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="A run config; the suite is named after "
                                                "its file (what the nightly of that config runs).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Record RUN's tests as the blessed suite NAME.

    The nightly of a config runs the suite named after it instead of regenerating one every night,
    and `adat suite export NAME` writes it for CI. Blessing a name again moves it to RUN."""
    from adat.config import check_run_id
    from adat.suites.suite_blessings import bless as record

    check_run_id(run, field="RUN")
    row = record(warehouse_root(data_dir), run, _name(name, config))
    console.print(f"suite {row.name}: run {row.run_id} ({row.tests} tests) blessed", markup=False)


@suite_app.command("list")
def list_suites(data_dir: DataDir = None) -> None:
    """Every blessing, newest last: name, run, tests, when, from where."""
    from adat.suites.suite_blessings import blessings

    for r in blessings(warehouse_root(data_dir)):
        console.print(f"{r.name:<24} {r.run_id:<32} {r.tests:>5} tests  {r.blessed_at:%Y-%m-%d %H:%M}  {r.source}",
                      markup=False)


@suite_app.command("export")
def export(
    suite: Annotated[str, typer.Argument(metavar="RUN|NAME", help="A blessed suite's name or a run id with tests.")],
    file: Annotated[Path, typer.Argument(help="Bundle to write: NAME.zip (one file) or a new directory.")],
    name: Annotated[str | None, typer.Option("--name", help="Name the bundle carries (default: NAME, or the run id).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Write a suite as one file a CI job can carry without the warehouse.

    The bundle holds the suite run's Parquet parts (tests, statements, its executions and
    verdicts, audit) and a manifest with their digests; FILE ending in .zip is one file."""
    from adat.suites.bundle import export_suite
    from adat.suites.suite_blessings import check_name, resolve_suite

    root = warehouse_root(data_dir)
    run = resolve_suite(root, suite, field="RUN|NAME")
    manifest = export_suite(root, run, check_name(name or suite), file)
    console.print(f"suite {manifest.name}: run {run}, {manifest.tests} tests, {len(manifest.parts)} Parquet parts "
                  f"-> {file}", markup=False)


@suite_app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="A bundle written by `adat suite export`.")],
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="Warehouse to import into (created when "
                                                  "missing; default: ./data).")] = None,
) -> None:
    """Import a suite bundle into a data directory and bless it there.

    The suite keeps its run id, so `adat run-suite --suite RUN --data-dir D` runs it; importing
    the same bundle again changes nothing."""
    from adat.config import RunConfig
    from adat.suites.bundle import import_suite

    root = (data_dir or RunConfig().data_path()).resolve()
    root.mkdir(parents=True, exist_ok=True)
    manifest = import_suite(file, root)
    console.print(f"suite {manifest.name}: run {manifest.run_id} ({manifest.tests} tests) imported into {root}; "
                  f"adat run-suite --suite {manifest.run_id} --data-dir {root} …", markup=False)
