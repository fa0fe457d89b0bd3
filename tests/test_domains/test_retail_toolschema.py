"""Tool schemas come from signatures and docstrings; arguments are checked against the same signature."""

from __future__ import annotations

import inspect
import json

import pytest

from adat.errors import ToolError
from adat_reference.retail.database import RetailDB
from adat_reference.retail.tools import TOOL_NAMES, RetailTools
from adat_reference.retail.toolschema import (
    bind_arguments,
    function_schema,
    json_schema_for,
    parse_docstring,
    shared_args,
)


def sample_tool(self, order_id: str, item_ids: list[str], count: int = 1, note: str | None = None) -> str:
    """Do something to an order.
    Second line of the summary.

    Args:
        order_id: The order id, such as '#W0000000'.
        item_ids: The items, which
            continue on an indented line.
        count: How many.

    Returns:
        Text.
    """
    return ""


def test_parse_docstring_summary_and_args() -> None:
    description, args = parse_docstring(sample_tool.__doc__)
    assert description == "Do something to an order. Second line of the summary."
    assert args == {"order_id": "The order id, such as '#W0000000'.",
                    "item_ids": "The items, which continue on an indented line.", "count": "How many."}


def test_function_schema_of_sample() -> None:
    schema = function_schema(sample_tool)
    params = schema["function"]["parameters"]
    assert schema["type"] == "function" and schema["function"]["name"] == "sample_tool"
    assert params["properties"]["item_ids"] == {"type": "array", "items": {"type": "string"},
                                                "description": "The items, which continue on an indented line."}
    assert params["properties"]["count"]["type"] == "integer"
    assert params["properties"]["note"] == {"type": "string"}  # Optional[str] -> string, undocumented
    assert params["required"] == ["order_id", "item_ids"]
    assert params["additionalProperties"] is False


@pytest.mark.parametrize(("hint", "expected"), [(str, {"type": "string"}), (float, {"type": "number"}),
                                                (bool, {"type": "boolean"}), (dict[str, int], {"type": "object"}),
                                                (list[int], {"type": "array", "items": {"type": "integer"}})])
def test_json_schema_for(hint: object, expected: dict) -> None:
    assert json_schema_for(hint) == expected


def test_every_retail_tool_has_a_complete_schema(generated_db: RetailDB) -> None:
    schemas = RetailTools(generated_db).schemas()
    assert [s["function"]["name"] for s in schemas] == list(TOOL_NAMES)
    json.dumps(schemas)  # plain JSON, ready for the OpenAI tools parameter
    for schema in schemas:
        fn = getattr(RetailTools, schema["function"]["name"])
        signature = [p for p in inspect.signature(fn).parameters if p != "self"]
        params = schema["function"]["parameters"]
        assert len(schema["function"]["description"]) > 30
        assert list(params["properties"]) == signature == params["required"]
        for name, prop in params["properties"].items():
            assert prop.get("description"), f"{schema['function']['name']}.{name} has no description"
    by_name = {s["function"]["name"]: s["function"]["parameters"]["properties"] for s in schemas}
    assert by_name["exchange_delivered_order_items"]["new_item_ids"]["type"] == "array"
    assert "'#'" in by_name["get_order_details"]["order_id"]["description"]
    assert by_name["list_all_product_types"] == {}


def test_bind_arguments_checks_presence_names_and_types() -> None:
    assert bind_arguments(sample_tool, "sample_tool", {"order_id": "#W1", "item_ids": ["1"]}) == {
        "order_id": "#W1", "item_ids": ["1"]}
    with pytest.raises(ToolError, match="missing required argument 'item_ids'"):
        bind_arguments(sample_tool, "sample_tool", {"order_id": "#W1"})
    with pytest.raises(ToolError, match="unexpected argument"):
        bind_arguments(sample_tool, "sample_tool", {"order_id": "#W1", "item_ids": [], "colour": "red"})
    with pytest.raises(ToolError, match="'count' must be integer"):
        bind_arguments(sample_tool, "sample_tool", {"order_id": "#W1", "item_ids": [], "count": "2"})


def test_shared_args_extend_the_args_section_and_need_it_last() -> None:
    def move(self, order_id: str, city: str) -> str:
        """Move an order.

        Args:
            order_id: The order id.
        """
        return ""

    shared_args({"city": "City, such as 'Austin'."})(move)
    assert parse_docstring(move.__doc__) == ("Move an order.", {"order_id": "The order id.",
                                                                 "city": "City, such as 'Austin'."})
    with pytest.raises(TypeError, match="Args: section"):
        shared_args({"city": "City."})(sample_tool)  # Returns: follows its Args
