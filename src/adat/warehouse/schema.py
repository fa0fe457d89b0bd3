"""Arrow schemas derived from the pydantic records, so Parquet, SQL and Python cannot drift.

The mapping is deliberately small and closed; an annotation outside it raises
:class:`UnsupportedAnnotation` at the first write, read or catalog build, so a new record field
with a type Parquet cannot hold fails a test instead of being stored as something else.

==========================  =====================================
record annotation           Arrow type
==========================  =====================================
``str``                     ``string``
``int``                     ``int64``
``float``                   ``float64``
``bool``                    ``bool``
``datetime``                ``timestamp('us', tz='UTC')`` (timezone-aware values only)
``Literal['a', 'b']``       ``string`` (the values are checked by pydantic on read)
``X | None``                the type of ``X``, nullable
``list[X]``                 ``list<X>``
a nested ``Record``         ``struct`` of its fields
==========================  =====================================

Fields that are not ``Optional`` are declared non-nullable: the Parquet files then say which
columns may hold NULL, as the records do.
"""

from __future__ import annotations

import types
from datetime import datetime
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

import pyarrow as pa

from adat.records import Record
from adat.warehouse.layout import PARTITION_COLUMN

_SCALARS: dict[type, pa.DataType] = {
    str: pa.string(),
    int: pa.int64(),
    float: pa.float64(),
    bool: pa.bool_(),
    datetime: pa.timestamp("us", tz="UTC"),
}


class UnsupportedAnnotation(TypeError):
    """A record field has a type the warehouse cannot map onto Arrow."""


@cache
def arrow_schema(model: type[Record]) -> pa.Schema:
    """The Arrow schema of ``model``: one field per record field, in declaration order.

    Includes ``run_id``, as every record does; :func:`file_schema` is what the files hold.
    """
    fields = []
    for name, info in model.model_fields.items():
        inner, nullable = _strip_optional(info.annotation)
        fields.append(pa.field(name, _arrow_type(inner, where=f"{model.__name__}.{name}"), nullable=nullable))
    return pa.schema(fields)


def file_schema(model: type[Record]) -> pa.Schema:
    """The schema stored inside a part file: :func:`arrow_schema` without the partition column."""
    schema = arrow_schema(model)
    return schema.remove(schema.get_field_index(PARTITION_COLUMN))


def _strip_optional(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (annotation, False)."""
    args = get_args(annotation)
    if get_origin(annotation) in (Union, types.UnionType) and len(args) == 2 and type(None) in args:
        return next(arg for arg in args if arg is not type(None)), True
    return annotation, False


def _arrow_type(annotation: Any, *, where: str) -> pa.DataType:
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    origin = get_origin(annotation)
    if origin is Literal:
        if all(isinstance(value, str) for value in get_args(annotation)):
            return pa.string()
        raise UnsupportedAnnotation(f"{where}: Literal values must all be str, got {annotation!r}")
    if origin is list:
        (item,) = get_args(annotation) or (None,)
        if item is None:
            raise UnsupportedAnnotation(f"{where}: bare list needs an item type, e.g. list[str]")
        inner, nullable = _strip_optional(item)
        return pa.list_(pa.field("item", _arrow_type(inner, where=f"{where}[]"), nullable=nullable))
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return pa.struct(list(arrow_schema(annotation)))
    raise UnsupportedAnnotation(
        f"{where}: annotation {annotation!r} has no Parquet mapping; use str/int/float/bool/datetime, "
        "Literal[str, ...], X | None, list[X] or a nested Record (free-form data goes in a *_json str field)")
