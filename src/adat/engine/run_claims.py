"""Who may write a run id: one flow per run id, one live process per run id, one night per nightly id.

A run id names Hive partitions every stage writes into, so two writers of one id merge their
rows (duplicate verdicts, doubled LLM calls). Three records keep them apart, all under
``<data_dir>/claims/``:

* **ownership** — the ``runs`` table: a run id a *different* flow recorded is refused;
* **liveness** — ``<run id>.lock``, held with ``fcntl.flock`` by the process whose flow writes
  the run for as long as the flow runs. The kernel drops the lock when that process ends, however
  it ends, so a second live writer is refused while a re-run after a crash (SIGKILL, OOM, reboot)
  finds the lock free and resumes — the same flow, the same id (docs/architecture.md, "Run ids");
* **the night** — ``<run id>.night``, created exclusively by the nightly flow run that first took a
  nightly id, holding that flow run's id. A Prefect retry of the same flow run finds its own id
  and resumes; any other flow run (a second night scheduled in the same minute) gets an id of its
  own (:func:`claim_night`).

A refusal is one line (:class:`RunIdInUse`, a :class:`~adat.errors.UserError`): exit 2 from the
CLI, a failed flow run with that line under a deployment.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, cast

from adat.errors import UserError

if TYPE_CHECKING:
    from adat.records import Run

CLAIMS_DIR = "claims"
#: lock path -> (open file descriptor, holders in this process); flock is per open file, so a
#: subflow of a flow that holds the lock (the nightly's pipeline) must reuse the descriptor
_HELD: dict[str, tuple[int, int]] = {}
_GUARD = threading.Lock()


class RunIdInUse(UserError):
    """The run id is another flow's, or another process writes it right now."""


def _lock_path(root: Path, run_id: str) -> Path:
    return Path(root) / CLAIMS_DIR / f"{run_id}.lock"


def check_owner(root: Path, run_id: str, flow: str) -> None:
    """RunIdInUse when ``run_id`` was recorded by another flow than ``flow`` (its latest ``runs`` row)."""
    from adat.warehouse.parquet import read_records

    runs = cast("list[Run]", read_records(root, "runs", run_id=run_id))
    if runs and runs[-1].flow != flow:
        raise RunIdInUse(f"run id {run_id!r} is in use by a {runs[-1].flow} run in {root}; a {flow} run would "
                         "merge into it", field="run_id",
                         fix="remove run_id from the config (a new one is made) or choose another")


def hold(root: Path, run_id: str) -> bool:
    """Take the liveness lock of ``run_id`` for this process (re-entrant); False when another
    process holds it."""
    path = _lock_path(root, run_id)
    key = str(path)
    with _GUARD:
        if key in _HELD:
            fd, count = _HELD[key]
            _HELD[key] = (fd, count + 1)
            return True
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        _HELD[key] = (fd, 1)
        return True


def release(root: Path, run_id: str) -> None:
    """Give back one hold of ``run_id``'s lock; the last one unlocks it."""
    key = str(_lock_path(root, run_id))
    with _GUARD:
        if key not in _HELD:
            return
        fd, count = _HELD.pop(key)
        if count > 1:
            _HELD[key] = (fd, count - 1)
            return
        os.ftruncate(fd, 0)  # released cleanly: an empty file is never a lead for mark_abandoned
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def held_runs() -> list[tuple[Path, str]]:
    """(data dir, run id) of every run whose claim this process holds. Read without the guard:
    a signal handler calls it, possibly while this very thread holds the guard."""
    return [(Path(key).parent.parent, Path(key).name.removesuffix(".lock")) for key in list(_HELD)]


def mark_abandoned(root: Path) -> list[str]:
    """Mark every run of ``root`` whose row says ``running`` but whose claim is free (its process is
    gone: killed, crashed, the machine rebooted) as ``abandoned``; return their ids. Every command
    that opens a data dir calls it first, so ``adat show``, reports and ``stg_runs`` never show a
    dead run as running.

    Cheap when nothing died: a claim released cleanly leaves an empty lock file, so only a lock
    file that still names a pid is a lead (a stat each, no Parquet read); a lead whose lock is
    free is held while its row is read and, if it still says ``running``, rewritten; the release
    empties the file, so a lead is followed once. (A ``running`` row with no lock file at all
    predates claims and is left alone.)"""
    leads = [p for p in (Path(root) / CLAIMS_DIR).glob("*.lock") if str(p) not in _HELD and _size(p)]
    if not leads:
        return []
    from adat.engine.context import end_run_row  # the runs table's writer (and Parquet): only for a lead

    marked = []
    for path in leads:
        run_id = path.name.removesuffix(".lock")
        pid = holder_pid(root, run_id)  # read before the hold below writes this process's pid
        try:
            if not hold(root, run_id):  # held while marking: a re-run starting now waits its turn
                continue  # a live process writes it
        except OSError:  # a data dir this command may only read: it reports what it finds
            continue
        try:
            if end_run_row(root, run_id, "abandoned", f"the process writing it (pid {pid}) is gone"):
                marked.append(run_id)
        finally:
            release(root, run_id)
    return marked


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def holder_pid(root: Path, run_id: str) -> str:
    """The pid the lock file names (who holds, or last held, the run), '?' when unreadable."""
    try:
        return _lock_path(root, run_id).read_text().strip() or "?"
    except OSError:
        return "?"


def claim_run(root: Path, run_id: str, flow: str) -> None:
    """Let this process write run ``run_id`` for ``flow``, or raise :class:`RunIdInUse` (one line).

    Same flow and no live writer: allowed (a fresh id, a re-run or a resume after a crash)."""
    check_owner(root, run_id, flow)
    if not hold(root, run_id):
        raise RunIdInUse(f"run id {run_id!r} is being written by another running process (pid {holder_pid(root, run_id)})",
                         field="run_id", fix="wait for that run to end, or choose another run id")


def check_run_free(root: Path, run_id: str, flow: str) -> None:
    """:func:`claim_run` without keeping the lock: a check a command makes before any flow starts."""
    claim_run(root, run_id, flow)
    release(root, run_id)


def claim_night(root: Path, run_id: str, flow_run_id: str) -> str:
    """The run id the nightly flow run ``flow_run_id`` writes: ``run_id`` when no other flow run
    took it (or it is this one's, resumed), else ``<run_id>-<last 4 hex digits of the flow run id>``."""
    directory = Path(root) / CLAIMS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    candidates = [run_id, f"{run_id}-{flow_run_id.replace('-', '')[-4:]}"]
    for candidate in candidates:
        path = directory / f"{candidate}.night"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if path.read_text().strip() == flow_run_id:
                return candidate  # this flow run's own night: a retry resumes it
            continue
        with os.fdopen(fd, "w") as f:
            f.write(f"{flow_run_id}\n")
        return candidate
    raise RunIdInUse(f"nightly run ids {' and '.join(map(repr, candidates))} are taken by other flow runs",
                     field="run_prefix", fix="start the night with another run_prefix")
