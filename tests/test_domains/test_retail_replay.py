"""Replaying the gold actions of all 114 τ²-bench retail tasks through adat's tools.

Each task starts from a fresh copy of the real τ²-bench database. Some gold trajectories contain
calls that τ²-bench's own tools reject on purpose (the simulated user gives a wrong email, zip or
order id first; the agent looks up the docstring's example product id; task 64 tries an exchange
on a pending order before modifying it; task 105's gift card cannot cover the exchange). Those
calls are listed below with the reason; every other gold call must succeed, and the listed ones
must fail for exactly that reason — so adat's tools accept and refuse what τ²-bench's do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adat.errors import ToolError
from adat_reference.retail.database import RetailDB
from adat_reference.retail.tools import WRITE_TOOLS, RetailTools

# (task id, index of the action in evaluation_criteria.actions) -> expected error text
REJECTED_BY_TAU2 = {
    ("2", 1): "Product not found: 6086499569",
    ("3", 1): "Product not found: 6086499569",
    ("4", 1): "Product not found: 6086499569",
    ("35", 0): "User not found",
    ("37", 0): "User not found",
    ("38", 0): "User not found",
    ("39", 0): "User not found",
    ("46", 1): "Order not found: #9502126",
    ("46", 2): "Order not found: #9502127",
    ("47", 1): "Order not found: #9502126",
    ("47", 2): "Order not found: #9502127",
    ("54", 0): "User not found",
    ("55", 0): "User not found",
    ("64", 6): "Non-delivered order cannot be exchanged",
    ("67", 0): "User not found",
    ("67", 1): "User not found",
    ("68", 0): "User not found",
    ("105", 0): "Insufficient gift card balance",
}


@pytest.fixture(scope="module")
def tau2_retail(shared_dir: Path) -> tuple[RetailDB, list[dict]]:
    folder = shared_dir / "benchmarks" / "tau2" / "retail"
    if not (folder / "db.json").is_file():
        pytest.skip(f"τ²-bench retail data not found in {folder}")
    return RetailDB.load(folder / "db.json"), json.loads((folder / "tasks.json").read_text())


def test_gold_actions_of_all_tasks_replay(tau2_retail: tuple[RetailDB, list[dict]]) -> None:
    base, tasks = tau2_retail
    assert len(tasks) == 114
    rejected: dict[tuple[str, int], str] = {}
    gold_writes = done_writes = 0
    for task in tasks:
        db = base.copy_fresh()
        tools = RetailTools(db)
        wrote = False
        for index, action in enumerate(task["evaluation_criteria"]["actions"]):
            gold_writes += action["name"] in WRITE_TOOLS
            try:
                tools.call(action["name"], action["arguments"])
            except ToolError as err:
                rejected[(task["id"], index)] = str(err)
            else:
                done_writes += action["name"] in WRITE_TOOLS
                wrote = wrote or action["name"] in WRITE_TOOLS
        # a task changes the database exactly when one of its writes went through
        assert (db != base) == wrote, task["id"]
    assert set(rejected) == set(REJECTED_BY_TAU2), f"unexpected refusals: {rejected}"
    for key, expected in REJECTED_BY_TAU2.items():
        assert expected in rejected[key], (key, rejected[key])
    assert done_writes == gold_writes - 2 > 150  # every gold write but the two τ²-bench refuses


def test_gold_writes_leave_the_expected_records(tau2_retail: tuple[RetailDB, list[dict]]) -> None:
    """Task 0 (exchange of two items) leaves exactly τ²-bench's record of the exchange."""
    base, tasks = tau2_retail
    tools = RetailTools(base.copy_fresh())
    for action in tasks[0]["evaluation_criteria"]["actions"]:
        tools.call(action["name"], action["arguments"])
    order = tools.db.orders["#W2378156"]
    assert order.status == "exchange requested"
    assert order.exchange_items == ["1151293680", "4983901480"]
    assert order.exchange_new_items == ["7706410293", "7747408585"]
    assert order.exchange_payment_method_id == "credit_card_9513926"
    old = sum(i.price for i in base.orders["#W2378156"].items if i.item_id in ("1151293680", "4983901480"))
    new = sum(tools.db.products[i.product_id].variants[n].price for i, n in
              zip(sorted((i for i in order.items if i.item_id in ("1151293680", "4983901480")), key=lambda i: i.item_id),
                  ["7706410293", "7747408585"], strict=True))
    assert order.exchange_price_difference == round(new - old, 2)
