"""Stages are declared once (adat.engine.stage_registry): every declaration names a step the one
wrapper can run, and a step writing a table its declaration does not name fails."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.engine.context import RunContext, UndeclaredWrite
from adat.engine.stage_registry import STAGES
from adat.engine.stage_runner import Outcome, run_stage
from adat.engine.table_checks import checks_over
from adat.records import TABLES
from adat.stages import statements
from adat.warehouse import read_records
from tests.test_sql import warehouse_fixture as fx

SQL = Path(__file__).resolve().parents[2] / "sql"


def test_every_stage_declares_a_step_taking_its_context_and_known_tables() -> None:
    for spec in STAGES.values():
        first = next(iter(inspect.signature(spec.step).parameters.values()))
        assert first.name == "ctx", spec.name
        assert set(spec.writes) <= set(TABLES) and set(spec.reads) <= set(TABLES), spec.name
        # upstream stages come first (stage_registry.downstream follows the edges in one pass)
        assert set(spec.upstream) <= set(list(STAGES)[:list(STAGES).index(spec.name)]), spec.name


def test_a_write_to_an_undeclared_table_fails_and_writes_nothing(tmp_path: Path, monkeypatch) -> None:
    def rogue_extraction(ctx: RunContext) -> Outcome:
        ctx.write("statements", [])  # declared: fine
        ctx.write("tests", [fx.test_case("r1", "t1", "plain", "s1")], owner="plain")  # plain generation's table
        return Outcome()

    monkeypatch.setattr(statements, "extraction_step", rogue_extraction)
    cfg = RunConfig(data_dir=str(tmp_path / "data"))
    with pytest.raises(UndeclaredWrite, match="stage extraction wrote table 'tests'"):
        run_stage("extraction", cfg, "r1")
    assert read_records(cfg.data_path(), "tests", run_id="r1") == []


def test_a_context_without_a_declaration_writes_any_table(tmp_path: Path) -> None:
    ctx = RunContext(RunConfig(data_dir=str(tmp_path / "data")), "r1")  # run bookkeeping: runs, instructions
    assert ctx.write("tests", [fx.test_case("r1", "t1", "plain", "s1")]) == 1


def test_checks_run_after_a_stage_are_those_over_the_tables_it_wrote() -> None:
    names = {p.stem for p in checks_over(["ranked_statements"], SQL)}
    assert names == {"duplicate_statement_ranks", "statements_not_on_agent_reply", "tests_without_statement"}
    assert "ungrouped_mappings" in {p.stem for p in checks_over(["groupings"], SQL)}
    assert checks_over(["spec_reruns"], SQL) == []


def test_a_rerun_stage_leaves_checks_over_stale_downstream_rows_to_that_stage(tmp_path: Path) -> None:
    """Extraction reran with new inputs: last run's plain tests name statements that are gone
    until plain generation reruns, so tests_without_statement waits for it; a fresh run checks."""
    import os
    import time

    from adat.engine.table_checks import CheckFailed, run_checks
    from adat.warehouse import write_records

    root = tmp_path / "data"
    write_records(root, "tests", [fx.test_case("r1", "t1", "plain", "gone")], run_id="r1", owner="plain")
    for part in (root / "runs" / "tests").rglob("*.parquet"):  # last night's run
        os.utime(part, (time.time() - 3600, time.time() - 3600))
    since = time.time()
    write_records(root, "statements", [], run_id="r1")
    run_checks(root, "r1", ["statements"], "extraction", since, sql_dir=SQL)  # waits: no error
    since = time.time()  # plain generation reruns: its new part replaces its old one
    write_records(root, "tests", [fx.test_case("r1", "t1", "plain", "gone")], run_id="r1", owner="plain",
                  replace=True)
    with pytest.raises(CheckFailed, match="tests_without_statement"):  # plain generation reran as it was
        run_checks(root, "r1", ["tests"], "plain-generation", since, sql_dir=SQL)


def test_a_context_makes_one_llm_client_however_many_threads_ask_at_once(tmp_path: Path) -> None:
    """Steps first touch ``ctx.client`` from worker threads; two clients would each keep calls and
    only one is drained (the spec suite's lost rows, issue 29's pending-row race)."""
    import threading

    from adat.config import RunConfig
    from adat.engine.context import RunContext

    ctx = RunContext(RunConfig(data_dir=str(tmp_path / "data")), "r1")
    start, seen = threading.Barrier(16), []

    def touch() -> None:
        start.wait()
        seen.append(ctx.client)

    threads = [threading.Thread(target=touch) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 16 and len({id(client) for client in seen}) == 1
