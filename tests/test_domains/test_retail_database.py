"""Loading, copying and hashing the retail database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adat.errors import UserError
from adat_reference.retail.database import RetailDB, default_db_path, default_policy_path


def test_load_errors_name_the_file_and_the_problem(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="file not found"):
        RetailDB.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UserError, match=r"bad\.json: not valid JSON"):
        RetailDB.load(bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"products": {}, "users": {}, "orders": {"#W1": {"order_id": "#W1"}}}))
    with pytest.raises(UserError, match=r"wrong\.json: orders\.#W1\.user_id: Field required"):
        RetailDB.load(wrong)
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"products": {}, "users": {}, "orders": {}, "stores": {}}))
    with pytest.raises(UserError, match="stores: Extra inputs are not permitted"):
        RetailDB.load(extra)


def test_copy_fresh_shares_nothing(generated_db: RetailDB) -> None:
    copy = generated_db.copy_fresh()
    assert copy.canonical_hash() == generated_db.canonical_hash()
    order = next(iter(copy.orders.values()))
    order.items[0].options["color"] = "chartreuse"
    order.status = "cancelled"
    assert copy.canonical_hash() != generated_db.canonical_hash()
    assert generated_db.orders[order.order_id].items[0].options.get("color") != "chartreuse"


def test_save_load_round_trip(generated_db: RetailDB, tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    generated_db.save(path)
    assert RetailDB.load(path).canonical_hash() == generated_db.canonical_hash()
    assert json.loads(path.read_text()) == generated_db.to_json_dict()


def test_canonical_hash_ignores_key_order(generated_db: RetailDB) -> None:
    data = generated_db.to_json_dict()
    reordered = {k: data[k] for k in reversed(list(data))}
    assert RetailDB.model_validate(reordered).canonical_hash() == generated_db.canonical_hash()


def test_real_tau2_database_round_trips(shared_dir: Path) -> None:
    path = shared_dir / "benchmarks" / "tau2" / "retail" / "db.json"
    if not path.is_file():
        pytest.skip(f"τ²-bench retail database not found at {path}")
    db = RetailDB.load(path)
    assert (len(db.users), len(db.orders), len(db.products)) == (500, 1000, 50)
    raw = json.loads(path.read_text())
    assert json.dumps(db.to_json_dict(), sort_keys=True) == json.dumps(raw, sort_keys=True)


def test_default_paths_point_at_shipped_files() -> None:
    assert default_db_path().is_file() and default_policy_path().is_file()
