"""Errors a user can cause, rendered as one line naming the file, the field and the fix."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in the user's input (config, catalog, spec, endpoint), not a bug in adat.

    The CLI prints ``str(err)`` on one line and exits with code 2; it never shows a traceback.
    """

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None,
                 fix: str | None = None, also: list[UserError] | None = None) -> None:
        self.message = message
        self.file = file
        self.field = field
        self.fix = fix
        #: further mistakes found in the same input (every config error is listed, not "+N more")
        self.also = list(also or [])
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """One line for this error and one for each error in :attr:`also`."""
        return [self.one_line(), *(line for err in self.also for line in err.lines())]

    def one_line(self) -> str:
        """``file: field: message (fix: fix)`` on one line, each part cut to a short excerpt (an
        error never repeats a pasted value or a 5,000-character key whole)."""
        where = ": ".join(_short(part, limit) for part, limit in ((self.file, 200), (self.field, 80)) if part)
        message = _short(self.message, 300)
        text = f"{where}: {message}" if where else message
        if self.fix:
            text += f" (fix: {_short(self.fix, 300)})"
        return text


def _short(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else f"{flat[:limit]}… ({len(flat)} chars)"


class StageFailed(Exception):
    """A stage's models failed: its LLM calls of one role failed beyond ``llm.max_failed_share``, or
    it produced nothing a later stage needs (0 statements, 0 tests). The run ends ``failed``; the
    CLI prints the one-line message and exits 1. Never retried (it is not transient)."""

    def __init__(self, stage: str, message: str, *, role: str | None = None) -> None:
        self.stage = stage
        self.role = role
        super().__init__(" ".join(f"{stage}: {message}".split()))


class TargetError(Exception):
    """The target failed to answer (HTTP error, timeout, crash); recorded on the execution.

    ``retries``: how often the failed message was sent again before giving up (http target).
    """

    retries: int = 0


class ToolError(Exception):
    """A domain tool refused a call (precondition not met, unknown id); shown to the agent."""
