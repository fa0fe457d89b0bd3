from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from adat.errors import UserError
from adat.records import TABLES, Instruction, LLMCall, Run, Trace
from adat.warehouse import partition_dir, read_records, run_ids, sweep_superseded, write_records
from adat.warehouse.layout import live_parts
from tests.fixtures.warehouse_records import TRICKY_TEXT, rich_record


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_record_type_round_trips_unchanged(tmp_path: Path, table: str) -> None:
    model = TABLES[table]
    records = [rich_record(model, variant=v, run_id="run-1") for v in range(4)]
    path = write_records(tmp_path, table, records, run_id="run-1")
    assert path is not None and path.parent == partition_dir(tmp_path, table, "run-1")
    back = read_records(tmp_path, table)
    assert back == records
    assert [r.model_dump() for r in back] == [r.model_dump() for r in records]


def test_run_id_lives_in_the_partition_not_in_the_file(tmp_path: Path) -> None:
    path = write_records(tmp_path, "runs", [rich_record(Run, variant=1, run_id="r7")], run_id="r7")
    assert path is not None and path.parent.name == "run_id=r7"
    assert "run_id" not in pq.read_schema(path).names


def test_reading_several_runs_and_one_run(tmp_path: Path) -> None:
    for run_id in ("b", "a", "c"):
        write_records(tmp_path, "traces", [rich_record(Trace, variant=1, run_id=run_id)], run_id=run_id)
    assert run_ids(tmp_path, "traces") == ["a", "b", "c"]
    assert [r.run_id for r in read_records(tmp_path, "traces")] == ["a", "b", "c"]  # type: ignore[attr-defined]
    assert [r.run_id for r in read_records(tmp_path, "traces", run_id="b")] == ["b"]  # type: ignore[attr-defined]


def test_parts_read_back_in_write_order(tmp_path: Path) -> None:
    ids = [f"t{i}" for i in range(12)]
    for trace_id in ids:
        write_records(tmp_path, "traces", [Trace(trace_id=trace_id, run_id="r", kind="execution")], run_id="r")
    assert [r.trace_id for r in read_records(tmp_path, "traces")] == ids  # type: ignore[attr-defined]


def test_empty_table_reads_as_nothing_with_the_right_columns(tmp_path: Path) -> None:
    assert read_records(tmp_path, "verdicts") == []
    assert write_records(tmp_path, "verdicts", [], run_id="r") is None


def test_numeric_run_ids_read_back_as_str(tmp_path: Path) -> None:
    write_records(tmp_path, "traces", [rich_record(Trace, variant=1, run_id="20240101")], run_id="20240101")
    (trace,) = read_records(tmp_path, "traces")
    assert trace.run_id == "20240101"  # type: ignore[attr-defined]
    assert trace.turns[0].text.endswith(TRICKY_TEXT)  # type: ignore[attr-defined]


def test_instruction_without_run_id_gets_the_partition_run_id(tmp_path: Path) -> None:
    instruction = Instruction(instruction_id="i1", title="t", text="x", factor="value", applicability="a",
                              prior_applicability=0.5)
    write_records(tmp_path, "instructions", [instruction], run_id="r1")
    assert read_records(tmp_path, "instructions") == [instruction.model_copy(update={"run_id": "r1"})]


def test_record_of_another_run_or_table_is_refused(tmp_path: Path) -> None:
    trace = Trace(trace_id="t", run_id="other", kind="discovery")
    with pytest.raises(ValueError, match="other"):
        write_records(tmp_path, "traces", [trace], run_id="r1")
    with pytest.raises(TypeError, match="Statement"):
        write_records(tmp_path, "statements", [trace], run_id="other")
    with pytest.raises(ValueError, match="unknown warehouse table"):
        write_records(tmp_path, "nope", [trace], run_id="other")
    assert not (tmp_path / "runs").exists() or read_records(tmp_path, "traces") == []


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "run id", ".hidden", "x=y"])
def test_unsafe_run_id_is_a_user_error(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UserError, match="run_id"):
        write_records(tmp_path, "traces", [], run_id=bad)


def test_naive_datetime_is_refused(tmp_path: Path) -> None:
    call = LLMCall(call_id="c", run_id="r", role="judge", provider="fake", model="m", ts=datetime(2030, 1, 1))
    with pytest.raises(ValueError, match="naive datetime"):
        write_records(tmp_path, "llm_calls", [call], run_id="r")
    aware = call.model_copy(update={"ts": datetime(2030, 1, 1, tzinfo=UTC)})
    write_records(tmp_path, "llm_calls", [aware], run_id="r")
    assert read_records(tmp_path, "llm_calls") == [aware]


def test_replace_swaps_the_partition_and_leaves_other_runs(tmp_path: Path) -> None:
    def trace(trace_id: str, run_id: str = "r1") -> Trace:
        return Trace(trace_id=trace_id, run_id=run_id, kind="discovery")

    write_records(tmp_path, "traces", [trace("old1")], run_id="r1")
    write_records(tmp_path, "traces", [trace("old2")], run_id="r1")
    write_records(tmp_path, "traces", [trace("keep", "r2")], run_id="r2")
    new_part = write_records(tmp_path, "traces", [trace("new")], run_id="r1", replace=True)
    assert live_parts(partition_dir(tmp_path, "traces", "r1")) == [new_part]
    # the replaced parts stay on disk, tombstoned, until their retention is over (then swept)
    assert len(list(partition_dir(tmp_path, "traces", "r1").glob("*.parquet"))) == 3
    assert sweep_superseded(tmp_path, older_than_s=0) == 2
    assert list(partition_dir(tmp_path, "traces", "r1").iterdir()) == [new_part]
    assert [t.trace_id for t in read_records(tmp_path, "traces")] == ["new", "keep"]  # type: ignore[attr-defined]
    write_records(tmp_path, "traces", [], run_id="r1", replace=True)
    assert [t.trace_id for t in read_records(tmp_path, "traces")] == ["keep"]  # type: ignore[attr-defined]


def test_part_written_before_a_field_was_added_reads_with_defaults(tmp_path: Path) -> None:
    """Simulates a record gaining an optional field: old parts lack the column."""
    call = LLMCall(call_id="c", run_id="r", role="judge", provider="fake", model="m",
                   ts=datetime(2030, 1, 1, tzinfo=UTC), retries=3)
    path = write_records(tmp_path, "llm_calls", [call], run_id="r")
    assert path is not None
    pq.write_table(pq.read_table(path).drop_columns(["retries", "error"]), path)
    assert read_records(tmp_path, "llm_calls") == [call.model_copy(update={"retries": 0})]


def test_part_with_a_column_the_record_lost_fails_loudly(tmp_path: Path) -> None:
    path = write_records(tmp_path, "traces", [Trace(trace_id="t", run_id="r", kind="discovery")], run_id="r")
    assert path is not None
    data = pq.read_table(path)
    pq.write_table(data.append_column("gone", pa.array(["x"])), path)
    with pytest.raises(ValueError, match="gone"):
        read_records(tmp_path, "traces")
