"""Checks before ``run-suite`` starts: it reads another run's suite and writes only its own run."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from adat.config import RunConfig
from adat.errors import UserError
from adat.records import Run
from adat.warehouse.layout import live_parts
from adat.warehouse.parquet import partition_dir, read_records


def has_rows(root: Path, table: str, run_id: str) -> bool:
    """Whether run ``run_id``'s partition of ``table`` holds a row (Parquet footers only, no rows read)."""
    import pyarrow.parquet as pq

    directory = partition_dir(root, table, run_id)
    return any(pq.read_metadata(path).num_rows for path in live_parts(directory))


def check_run_suite(cfg: RunConfig, suite_run_id: str) -> None:
    """UserError unless ``suite_run_id`` has tests and the config's run id is free for a run-suite run.

    The run-suite run must differ from the suite run and must not be a run another flow built
    (its tables would be replaced); an earlier run-suite run of the same id is resumed.
    """
    root = cfg.data_path()
    if not has_rows(root, "tests", suite_run_id):
        raise no_suite(suite_run_id, root)
    if cfg.run_id is None:
        return
    if cfg.run_id == suite_run_id:
        raise UserError(f"run_id {cfg.run_id!r} is the suite's own run; run-suite writes a new run", field="run_id",
                        fix="remove run_id from the config (a new one is made) or choose another")
    earlier = cast(list[Run], read_records(root, "runs", run_id=cfg.run_id))
    if earlier and earlier[-1].flow != "run_suite":
        raise UserError(f"run {cfg.run_id!r} already exists (built by {earlier[-1].flow}); run-suite would replace "
                        "its tables", field="run_id", fix="remove run_id from the config (a new one is made) or choose another")


def no_suite(suite_run_id: str, root: Path) -> UserError:
    """The one-line error for a ``--suite`` run without tests."""
    return UserError(f"run {suite_run_id!r} has no tests in {root}", field="--suite",
                     fix="pass the run id of a run that built a suite (adat sql stg_runs), or the --data-dir it is in")
