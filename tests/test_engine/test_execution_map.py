"""The mapped execution path (execution.task_runner: dask) writes what the in-process stage writes:
the same tests, the same owner-named parts and the variant of a fault run, leaving other phases' parts."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.engine.context import RunContext
from adat.engine.stage_runner import run_stage
from adat.errors import UserError
from adat.stages import execution as m
from adat.warehouse.parquet import part_owner, partition_dir, read_records
from tests.test_evaluation.conftest import BAD_REASON, BY_MISTAKE, CHLOE, RUN, make_test

FAULT = "cancel_any_reason"


def _fault_run(root: Path) -> RunConfig:
    cfg = RunConfig(data_dir=str(root), run_id=RUN)
    cfg = cfg.model_copy(update={"target": cfg.target.model_copy(update={"fault": FAULT})})
    ctx = RunContext(cfg, RUN)
    ctx.write("tests", [make_test("t-reason", [CHLOE, BAD_REASON]), make_test("t-mistake", [CHLOE, BY_MISTAKE])],
              owner="plain")
    return cfg


def _written(cfg: RunConfig) -> tuple[set[str], list[tuple[str, str, str]]]:
    root = cfg.data_path()
    owners = {part_owner(p) for t in ("executions", "verdicts") for p in partition_dir(root, t, RUN).glob("part-*")}
    rows = sorted((e.execution_id, e.test_id, e.agent_variant) for e in read_records(root, "executions", run_id=RUN))
    return owners, rows


def test_the_mapped_path_writes_as_the_in_process_stage(tmp_path: Path) -> None:
    threads = _fault_run(tmp_path / "threads")
    run_stage("execution", threads, RUN)
    mapped = _fault_run(tmp_path / "mapped")
    tests = m.execution_tests(mapped, RUN)
    run_stage("record-executions", mapped, RUN, tests=tests, results=[m.execute_and_judge(mapped, RUN, t) for t in tests])
    owners, rows = _written(mapped)
    assert (owners, rows) == _written(threads)
    assert owners == {f"execution.plain.{FAULT}"}
    assert {variant for _, _, variant in rows} == {FAULT} and len(rows) == 2
    verdicts = read_records(mapped.data_path(), "verdicts", run_id=RUN)
    assert {v.execution_id for v in verdicts} == {e for e, _, _ in rows}


def test_a_suite_without_tests_is_a_user_error_on_both_paths(tmp_path: Path) -> None:
    cfg = RunConfig(data_dir=str(tmp_path / "data"), run_id="rs-1")
    with pytest.raises(UserError, match="has no tests"):
        m.execution_tests(cfg, "rs-1", "all", suite_run_id="nothing-here")
    with pytest.raises(UserError, match="has no tests"):
        run_stage("execution", cfg, "rs-1", kind="all", suite_run_id="nothing-here")
