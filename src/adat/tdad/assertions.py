"""TDAD's spec-test assertions: the evaluator shared with AdaT2's process checks.

It lives in :mod:`adat.trace_assertions` (both pipelines import it; neither owns it); this
module keeps the name the TDAD modules import it by.
"""

from __future__ import annotations

from adat.trace_assertions import HOLD_ON_SILENCE, TOOL_KINDS, evaluate, evaluate_all, verdict_of

__all__ = ["HOLD_ON_SILENCE", "TOOL_KINDS", "evaluate", "evaluate_all", "verdict_of"]
