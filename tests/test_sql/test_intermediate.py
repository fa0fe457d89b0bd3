"""The sql/intermediate views: conventions, each builds, each is used, and each keeps its grain."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from adat.warehouse import available_queries, declared_params, resolve_query, run_query
from tests.test_sql.conftest import SQL_DIR
from tests.test_sql.sql_sources import (
    catalog_views,
    code,
    declared_inputs,
    header_field,
    header_lines,
    read_relations,
)

INTERMEDIATE = sorted(path.stem for path in (SQL_DIR / "intermediate").glob("*.sql"))


def int_file(name: str) -> Path:
    return SQL_DIR / "intermediate" / f"{name}.sql"


def grain_columns(path: Path) -> list[str]:
    """Key columns from ``-- grain: a, b (note); note``: the names before any note."""
    grain = header_field(path, "grain") or ""
    return [name.strip() for name in re.split(r"[(;]", grain, maxsplit=1)[0].split(",")]


def test_there_are_intermediate_views() -> None:
    assert INTERMEDIATE


@pytest.mark.parametrize("name", INTERMEDIATE)
def test_intermediate_file_follows_the_conventions(fixture_db: Path, name: str) -> None:
    path = int_file(name)
    header = header_lines(path)
    assert header[0].startswith(f"-- {name}:"), path
    assert header_field(path, "grain") and header_field(path, "inputs"), f"{path}: needs grain and inputs lines"
    # a view takes no parameters: the metric reading it applies the run filter
    assert declared_params(path) == [] and "$" not in code(path), f"{path}: uses a parameter"
    strays = read_relations(path) - catalog_views(fixture_db, "stg_", "int_") - {name}
    assert not strays, f"{path}: reads {sorted(strays)} (only stg_* and int_* views of the catalog)"
    assert declared_inputs(path) == read_relations(path), f"{path}: '-- inputs:' is not what the file reads"


@pytest.mark.parametrize("name", INTERMEDIATE)
def test_intermediate_view_builds_and_keeps_its_grain(fixture_db: Path, name: str) -> None:
    keys = grain_columns(int_file(name))
    with duckdb.connect(str(fixture_db), read_only=True) as con:
        columns = [row[0] for row in con.execute(f"describe {name}").fetchall()]
        assert set(keys) <= set(columns), f"{name}: grain {keys} not among its columns {columns}"
        key = ", ".join(keys)
        row = con.execute(f"select count(*), count(distinct ({key})) from {name}").fetchone()
    assert row is not None
    rows, distinct_keys = row
    assert rows > 0, f"{name} is empty on the fixture warehouse"  # every view is exercised by real rows
    assert rows == distinct_keys, f"{name}: {rows - distinct_keys} rows repeat a grain key ({key})"


def test_every_intermediate_view_is_used_by_a_metric() -> None:
    """Used directly by a metric, check or report query, or by an intermediate view that is (transitively)."""
    readers = [*(SQL_DIR / "metrics").glob("*.sql"), *(SQL_DIR / "checks").glob("*.sql"),
               *(SQL_DIR / "report").glob("*.sql")]
    used = set().union(*(read_relations(path) for path in readers)) & set(INTERMEDIATE)
    frontier = set(used)
    while frontier:
        frontier = set().union(*(read_relations(int_file(name)) for name in frontier)) & set(INTERMEDIATE) - used
        used |= frontier
    assert sorted(set(INTERMEDIATE) - used) == []


def test_intermediate_views_run_by_name(fixture_db: Path) -> None:
    assert resolve_query("int_test_validity", SQL_DIR) == int_file("int_test_validity")
    assert resolve_query("intermediate/int_test_validity", SQL_DIR) == int_file("int_test_validity")
    assert {f"intermediate/{name}" for name in INTERMEDIATE} <= set(available_queries(SQL_DIR))
    rows = run_query(fixture_db, int_file("int_test_validity"), {}).to_pylist()
    assert {"run_id": "r1", "kind": "all", "counted": 7, "audited": 6, "valid": 5, "explicit_valid": 3} in rows


def test_seeded_faults_and_prompt_mutants_share_one_kill_rule(fixture_db: Path) -> None:
    """int_variant_kills scores the retail faults (kind 'fault') and TDAD mutants (kind 'prompt')."""
    rows = run_query(fixture_db, int_file("int_variant_kills"), {}).to_pylist()
    kills = {(r["kind"], r["variant"], r["test_id"]) for r in rows if r["kills"] and r["activated"]}
    # F1: s1 passes on the original, fails on F1 with TP attributed to F1; F4 via hidden s3.
    # F2's failing s2 is TP but attributed to F1: no kill. M1 is killed by a1 (TTT on the base);
    # M2's a2 fails on the mutant but was flaky on the base (TFT): no kill.
    assert kills == {("fault", "F1", "s1"), ("fault", "F4", "s3"), ("prompt", "M1", "a1")}
    assert {r["kind"] for r in rows} == {"fault", "prompt"}
    # M4 fails a1 but its probe never held: the row is there, the score leaves it out
    assert any(r["variant"] == "M4" and r["kills"] and not r["activated"] for r in rows)
    flaky = next(r for r in rows if r["variant"] == "M2" and r["test_id"] == "a2")
    assert flaky["variant_failed"] and flaky["base_runs"] == 3 and not flaky["base_pass_all"]
