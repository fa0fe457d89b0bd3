"""A fault's regression reads only its own execution-phase parts: another fault's regression may be
replacing (unlinking) its parts at the same moment, under the concurrent fault runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.engine.context import RunContext
from adat.engine.stage_runner import run_stage
from adat.warehouse.parquet import part_owner, partition_dir
from tests.test_evaluation.conftest import BAD_REASON, BY_MISTAKE, CHLOE, RUN, make_test

MINE, OTHER = "cancel_any_reason", "no_write_confirmation"


def _run(root: Path) -> RunContext:
    cfg = RunConfig(data_dir=str(root), run_id=RUN)
    ctx = RunContext(cfg, RUN)
    ctx.write("tests", [make_test("t-reason", [CHLOE, BAD_REASON]), make_test("t-mistake", [CHLOE, BY_MISTAKE])],
              owner="plain")
    run_stage("execution", cfg, RUN)  # the original agent's plain phase
    for fault in (MINE, OTHER):
        run_stage("execution", cfg, RUN, kind="all", fault=fault)
    return ctx


def _vanish(ctx: RunContext, fault: str) -> None:
    """The other regression's parts disappear between a listing and a read: make them unreadable."""
    for table in ("executions", "verdicts", "rule_events"):
        for part in partition_dir(ctx.root, table, RUN).glob("part-*"):
            if part_owner(part) == f"execution.all.{fault}":
                part.write_bytes(b"replaced under the reader")


def test_a_regression_never_opens_another_faults_parts(tmp_path: Path) -> None:
    ctx = _run(tmp_path / "data")
    _vanish(ctx, OTHER)
    with pytest.raises(Exception):  # noqa: B017  (a reader of the whole table does open them)
        ctx.read("executions")
    mine = ctx.read_variants("executions", [MINE])
    assert len(mine) == 2 and {r.agent_variant for r in mine} == {MINE}
    events = ctx.read_variants("rule_events", [MINE])
    assert events and {r.agent_variant for r in events} == {MINE}
    assert {v.execution_id for v in ctx.read_variants("verdicts", [MINE])} == {e.execution_id for e in mine}
    both = ctx.read_variants("executions", ["original", MINE])
    assert {r.agent_variant for r in both} == {"original", MINE}
    assert len([r for r in both if r.agent_variant == "original"]) == 2


def test_other_owners_parts_are_read_and_filtered_by_row(tmp_path: Path) -> None:
    """Parts that are not an execution phase's (the transformation stage's) hold rows of a variant too."""
    ctx = _run(tmp_path / "data")
    original = ctx.read_variants("executions", ["original"])
    moved = [e.model_copy(update={"execution_id": e.execution_id + "-xf"}) for e in original]
    ctx.write("executions", moved, replace=False, owner="transformation")
    ids = {e.execution_id for e in ctx.read_variants("executions", ["original"])}
    assert ids == {e.execution_id for e in original} | {e.execution_id for e in moved}
    assert not {e.execution_id for e in ctx.read_variants("executions", [MINE])} & ids
