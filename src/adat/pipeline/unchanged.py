"""An unchanged ``run-suite`` re-run is answered from the warehouse, without starting a flow.

A flow whose every task is a cache hit still pays for Prefect's import, a flow run, the run rows,
a catalog rebuild and the artifacts: seconds for nothing new. So the CLI keeps, per completed run,
the key it ran under — the ``execution`` stage's own cache key (:func:`stage_key`: its code,
prompts, target artifacts, result-changing config, run id and the suite's partitions, the issue-8
semantics) plus the source of the flow and task modules that Prefect's ``TASK_SOURCE`` policy
also hashes. When the run's last record is ``completed`` under the same key, nothing would be
recomputed, and the CLI prints the stored run's summary instead. Any other case runs the flow.

The record is a cache entry under ``<data_dir>/prefect`` (with Prefect's results), not a table.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import cast

from adat.config import RunConfig
from adat.pipeline.fingerprint import stage_key
from adat.records import Run
from adat.warehouse.parquet import read_records

#: modules whose source is part of the key: the flow and its task wrappers (``TASK_SOURCE``)
FLOW_MODULES = {"run_suite": ("flows.run_suite", "flows._run_status", "tasks.pipeline_tasks", "tasks._common")}


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
    sources = _sources_digest(FLOW_MODULES["run_suite"])
    if sources is None:
        return None
    inputs = {"cfg": cfg, "run_id": cfg.run_id, "code": "", "after": None, "kind": "all",
              "suite_run_id": suite_run_id, "fault": None}  # the flow's execution task's parameters
    return f"{stage_key('execution', inputs)}-{sources[:16]}"


def is_unchanged(cfg: RunConfig, flow: str, key: str | None) -> bool:
    """Whether run ``cfg.run_id`` last completed under ``key`` (so re-running it recomputes nothing)."""
    if key is None or not cfg.run_id:
        return False
    path = _store(cfg, flow, cfg.run_id)
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if stored.get("key") != key:
        return False
    runs = cast(list[Run], read_records(cfg.data_path(), "runs", run_id=cfg.run_id))
    return bool(runs) and runs[-1].flow == flow and runs[-1].status == "completed"


def remember(cfg: RunConfig, flow: str, run_id: str, key: str | None) -> None:
    """Record that ``run_id`` completed under ``key`` (only for the run the key was made for)."""
    if key is None or run_id != cfg.run_id:
        return
    path = _store(cfg, flow, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"flow": flow, "run_id": run_id, "key": key}), encoding="utf-8")
    tmp.replace(path)
