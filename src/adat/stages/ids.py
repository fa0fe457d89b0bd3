"""Deterministic ids for the rows the stages write.

Ids are short hashes of what makes a row unique within a run, so re-running a stage on the same
inputs (a cached task, a resumed transformation loop) produces the same ids and rows join up.
"""

from __future__ import annotations

import hashlib


def stable_id(prefix: str, *parts: object) -> str:
    """``<prefix>-<12 hex>`` from the parts; equal parts give equal ids."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()[:12]
    return f"{prefix}-{digest}"


def discovery_trace_id(run_id: str, session_no: int) -> str:
    """Id of the discovery trace of 1-based session ``session_no``."""
    return stable_id("tr", run_id, "discovery", session_no)


def statement_id(run_id: str, trace_id: str, text: str) -> str:
    """Id of a statement: its run, its supporting trace and its text (duplicates are removed)."""
    return stable_id("st", run_id, trace_id, " ".join(text.split()))


def plain_test_id(run_id: str, statement_id: str) -> str:
    """Id of the (at most one) plain test of a statement."""
    return stable_id("te", run_id, "plain", statement_id)


def transformed_test_id(run_id: str, statement_id: str, instruction_id: str) -> str:
    """Id of the transformed test of a pair; each pair is tried at most once per run."""
    return stable_id("te", run_id, "transformed", statement_id, instruction_id)


def execution_id(run_id: str, test_id: str, agent_variant: str = "original", repeat: int = 0) -> str:
    """Id of one execution of a test against one agent variant (``repeat`` for pass^k runs)."""
    return stable_id("ex", run_id, test_id, agent_variant, repeat)

