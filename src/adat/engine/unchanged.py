"""An unchanged ``run-suite`` re-run is answered from the warehouse, without starting a flow.

A flow whose every task is a cache hit still pays for Prefect's import, a flow run, the run rows,
a catalog refresh and the artifacts: seconds for nothing new. So the CLI keeps, per completed run,
the key it ran under — the ``execution`` stage's own cache key (:func:`stage_key`: its code,
prompts, target artifacts, result-changing config, run id and the suite's partitions, the issue-8
semantics) plus the source of the flow and task modules that Prefect's ``TASK_SOURCE`` policy
also hashes. When the run's last record is ``completed`` under the same key, nothing would be
recomputed, and the CLI prints the stored run's summary instead. Any other case runs the flow.

The answer costs no more than the key: the record also holds the digest of the run's ``runs``
partition when it completed (the same digest now means its last record is still that one, so
no Parquet is read) and the summary the CLI printed, with a digest of what it was computed from
— the run's parts, the ``sql/`` files and the summary's code (:func:`summary_state`) — so the same
state prints it again without DuckDB. A different state reads the records and the SQL instead.

The record is a cache entry under ``<data_dir>/prefect`` (with Prefect's results), not a table.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any, cast

from adat.config import RunConfig, adat_home
from adat.engine.fingerprint import code_digest, partition_digest, stage_key
from adat.records import TABLES, Run

#: modules whose source is part of the key: the flow and its task wrappers (``TASK_SOURCE``)
RUN_SUITE_MODULES = ("flows.run_suite", "flows._run_status", "tasks.stage_tasks", "tasks.stage_factory")
#: the function whose code (and the adat modules it imports) computes the stored summary
SUMMARY_ENTRY = "adat.run_figures:run_summary"


def _store(cfg: RunConfig, flow: str, run_id: str) -> Path:
    return cfg.data_path() / "prefect" / "unchanged" / f"{flow}-{run_id}.json"


def _sources_digest(modules: tuple[str, ...]) -> str | None:
    digest = hashlib.sha256()
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            return None
        digest.update(name.encode() + b"\0" + Path(spec.origin).read_bytes())
    return digest.hexdigest()


def run_suite_key(cfg: RunConfig, suite_run_id: str) -> str | None:
    """The key a ``run-suite`` of ``suite_run_id`` runs under (None: no run id, so never a re-run)."""
    if not cfg.run_id:
        return None
    sources = _sources_digest(RUN_SUITE_MODULES)
    if sources is None:
        return None
    inputs = {"cfg": cfg, "run_id": cfg.run_id, "after": None, "kind": "all", "suite_run_id": suite_run_id,
              "fault": None, "test_ids": None}  # the flow's execution task's parameters
    return f"{stage_key('execution', inputs)}-{sources[:16]}"


def summary_state(root: Path, run_id: str) -> str:
    """Digest of what run ``run_id``'s summary is computed from: its parts (names and sizes, parts
    are immutable) in every table, the ``sql/`` files and the summary's code."""
    digest = hashlib.sha256(f"{code_digest(SUMMARY_ENTRY)}\n{partition_digest(root, run_id, TABLES)}\n".encode())
    sql = adat_home() / "sql"
    for path in sorted(sql.rglob("*.sql")):
        digest.update(f"{path.relative_to(sql)}\n".encode() + path.read_bytes())
    return digest.hexdigest()[:32]


def _stored(cfg: RunConfig, flow: str, key: str | None) -> dict[str, Any] | None:
    """The record of run ``cfg.run_id`` if it was made under ``key``."""
    if key is None or not cfg.run_id:
        return None
    try:
        stored = json.loads(_store(cfg, flow, cfg.run_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stored if isinstance(stored, dict) and stored.get("key") == key else None


def is_unchanged(cfg: RunConfig, flow: str, key: str | None) -> bool:
    """Whether run ``cfg.run_id`` last completed under ``key`` (so re-running it recomputes nothing)."""
    stored = _stored(cfg, flow, key)
    if stored is None:
        return False
    assert cfg.run_id is not None
    if stored.get("runs") == partition_digest(cfg.data_path(), cfg.run_id, ["runs"]):
        return True  # the runs partition as it was when the run completed: its last record is that one
    from adat.warehouse.parquet import read_records

    runs = cast(list[Run], read_records(cfg.data_path(), "runs", run_id=cfg.run_id))
    return bool(runs) and runs[-1].flow == flow and runs[-1].status == "completed"


def stored_summary(cfg: RunConfig, flow: str, key: str | None) -> dict[str, Any] | None:
    """The summary printed when run ``cfg.run_id`` completed under ``key``, if nothing it was
    computed from changed since (:func:`summary_state`); else None."""
    stored = _stored(cfg, flow, key)
    if stored is None or not isinstance(stored.get("summary"), dict):
        return None
    assert cfg.run_id is not None
    return cast(dict[str, Any], stored["summary"]) if stored.get("state") == summary_state(
        cfg.data_path(), cfg.run_id) else None


def remember(cfg: RunConfig, flow: str, run_id: str, key: str | None, summary: dict[str, Any] | None = None) -> None:
    """Record that ``run_id`` completed under ``key`` (only for the run the key was made for), with
    the ``summary`` printed for it."""
    if key is None or run_id != cfg.run_id:
        return
    root = cfg.data_path()
    record = {"flow": flow, "run_id": run_id, "key": key, "runs": partition_digest(root, run_id, ["runs"]),
              "state": summary_state(root, run_id), "summary": summary}
    path = _store(cfg, flow, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record), encoding="utf-8")
    tmp.replace(path)
