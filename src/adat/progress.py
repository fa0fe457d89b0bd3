"""Progress of long phases on the terminal: a live bar on a TTY, a line every 10 % otherwise.

Long phases (discovery sessions, executions, transformation attempts) call a
``progress(done, total)`` callback; :func:`terminal_progress` makes one for a label.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

_lock = threading.Lock()
_bars: dict[str, tuple[Progress, TaskID]] = {}


def terminal_progress(label: str, *, stream: TextIO | None = None) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callback that draws on stderr (or ``stream``)."""
    out = stream or sys.stderr
    console = Console(file=out, stderr=stream is None)
    live = console.is_terminal
    last = {"decile": -1}

    def report(done: int, total: int) -> None:
        if live:
            _draw(console, label, done, total)
            return
        decile = int(10 * done / total) if total else 10
        if decile != last["decile"] or done == total:
            last["decile"] = decile
            # write(), not print(): flows run with log_prints=True, which reroutes print to the logger
            out.write(f"{label}: {done}/{total}\n")
            out.flush()

    return report


def _draw(console: Console, label: str, done: int, total: int) -> None:
    with _lock:
        if label not in _bars:
            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TimeElapsedColumn(), console=console, transient=False)
            bar.start()
            _bars[label] = (bar, bar.add_task(label, total=total))
        bar, task_id = _bars[label]
        bar.update(task_id, completed=done, total=total)
        if done >= total:
            bar.stop()
            del _bars[label]
