"""Spend recorded before it is spent: an append-only journal of every request sent to a provider.

The client keeps its :class:`~adat.records.LLMCall` rows in memory until the stage flushes them to
Parquet; a process killed in between would hide the requests it had made from ``llm_calls`` and so
from the budgets. So before each request goes out the client appends one line to
``<data_dir>/_llm/journal/<run_id>.jsonl`` (flushed and fsynced: it survives SIGKILL). At the
start and the end of a run (:func:`fold_journal`, called by the run's start and finish steps,
when no call is in flight) every journaled call that has no row becomes a *pending* row
(``pending=True``, ``error`` saying so, tokens unknown, one request per journaled send in
``retries``) and the journal is removed. A budget counts pending rows as calls.
"""

from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from adat.records import LLMCall

PENDING_ERROR = "pending: the request was sent but no answer was recorded (the process ended mid-call)"


def journal_path(root: Path, run_id: str) -> Path:
    """Where run ``run_id``'s journal lives under the warehouse root ``root``."""
    return Path(root) / "_llm" / "journal" / f"{run_id}.jsonl"


class CallJournal:
    """Appends one durable line per request sent (thread-safe; O_APPEND keeps processes' lines whole)."""

    def __init__(self, root: Path, run_id: str) -> None:
        self.path = journal_path(root, run_id)
        self.run_id = run_id
        self._lock = threading.Lock()

    def sent(self, call: LLMCall, kind: str) -> None:
        """Record that a request of logical call ``call`` (``kind``: send | retry | repair) is going out."""
        names = call.model_dump(include={"call_id", "role", "provider", "model", "prompt_id", "prompt_version",
                                         "phase"})
        line = json.dumps({**names, "kind": kind, "ts": datetime.now(UTC).isoformat()}, sort_keys=True) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, line.encode())
                os.fsync(fd)
            finally:
                os.close(fd)


def pending_rows(root: Path, run_id: str, recorded: set[str]) -> list[LLMCall]:
    """Rows for the journaled calls of ``run_id`` whose ``call_id`` is not in ``recorded``."""
    path = journal_path(root, run_id)
    if not path.is_file():
        return []
    sends: dict[str, list[dict[str, str]]] = defaultdict(list)
    for text in path.read_text().splitlines():
        try:
            entry = json.loads(text)
        except ValueError:  # a line cut by the kill: its call has earlier lines, or no request went out
            continue
        if isinstance(entry, dict) and entry.get("call_id") not in recorded:
            sends[str(entry["call_id"])].append(entry)
    rows = []
    for call_id, entries in sends.items():
        first = entries[0]
        rows.append(LLMCall(
            call_id=call_id, run_id=run_id, role=first["role"], provider=first["provider"], model=first["model"],
            prompt_id=first.get("prompt_id", ""), prompt_version=first.get("prompt_version", ""),
            retries=sum(1 for e in entries if e["kind"] == "retry"),
            repaired=any(e["kind"] == "repair" for e in entries), error=PENDING_ERROR, pending=True,
            ts=datetime.fromisoformat(first["ts"]), phase=first.get("phase", ""), priced=False))
    return rows


def fold_journal(root: Path, run_id: str) -> int:
    """Write pending rows for run ``run_id``'s unrecorded journaled calls, then drop the journal.

    Call only when no call of the run is in flight (a run's start or end). Returns the rows written.
    """
    from adat.warehouse.parquet import read_records, write_records

    path = journal_path(root, run_id)
    if not path.is_file():
        return 0
    recorded = {str(getattr(row, "call_id", "")) for row in read_records(root, "llm_calls", run_id=run_id)}
    rows = pending_rows(root, run_id, recorded)
    if rows:
        write_records(root, "llm_calls", rows, run_id=run_id, replace=False)
    path.unlink()
    return len(rows)
