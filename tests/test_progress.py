"""Terminal progress: a line every 10 % when the stream is not a terminal."""

import io

from adat.progress import terminal_progress


def test_non_tty_progress_prints_deciles_and_the_end():
    out = io.StringIO()
    report = terminal_progress("executions", stream=out)
    for done in range(1, 21):
        report(done, 20)
    lines = out.getvalue().strip().splitlines()
    assert lines[0] == "executions: 1/20" and lines[-1] == "executions: 20/20"
    assert len(lines) == 11  # the first update, then one per decile
