from __future__ import annotations

from datetime import datetime
from typing import Literal

import pyarrow as pa
import pytest

from adat.records import TABLES, Record, Trace
from adat.warehouse.schema import UnsupportedAnnotation, arrow_schema, file_schema


@pytest.mark.parametrize("table", sorted(TABLES))
def test_schema_has_one_column_per_field_in_order(table: str) -> None:
    model = TABLES[table]
    assert arrow_schema(model).names == list(model.model_fields)
    assert "run_id" not in file_schema(model).names


def test_types_follow_the_mapping() -> None:
    class Inner(Record):
        tag: Literal["a", "b"]
        n: int | None = None

    class Sample(Record):
        s: str
        i: int
        f: float
        b: bool
        t: datetime
        lit: Literal["x", "y"]
        opt: float | None = None
        tags: list[str]
        inner: Inner
        inners: list[Inner]

    schema = arrow_schema(Sample)
    inner = pa.struct([pa.field("tag", pa.string(), nullable=False), pa.field("n", pa.int64())])
    assert schema.field("s").type == pa.string() and not schema.field("s").nullable
    assert schema.field("i").type == pa.int64()
    assert schema.field("f").type == pa.float64()
    assert schema.field("b").type == pa.bool_()
    assert schema.field("t").type == pa.timestamp("us", tz="UTC")
    assert schema.field("lit").type == pa.string()
    assert schema.field("opt").type == pa.float64() and schema.field("opt").nullable
    assert schema.field("tags").type == pa.list_(pa.field("item", pa.string(), nullable=False))
    assert schema.field("inner").type == inner
    assert schema.field("inners").type == pa.list_(pa.field("item", inner, nullable=False))


def test_trace_turns_are_a_list_of_structs() -> None:
    turns = arrow_schema(Trace).field("turns").type
    assert pa.types.is_list(turns)
    assert [f.name for f in turns.value_type] == ["role", "text", "ts", "tool_calls"]


@pytest.mark.parametrize("annotation", [dict[str, int], set[str], Literal[1, 2], int | str, bytes, list])
def test_unsupported_annotations_fail_loudly(annotation: object) -> None:
    model = type("Odd", (Record,), {"__annotations__": {"x": annotation}})
    with pytest.raises(UnsupportedAnnotation, match=r"Odd\.x"):
        arrow_schema(model)
