from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.warehouse_records import write_fixture_warehouse

#: the project's own sql/ folder (staging views under test)
SQL_DIR = Path(__file__).resolve().parents[2] / "sql"


@pytest.fixture
def sql_dir() -> Path:
    return SQL_DIR


@pytest.fixture
def fixture_root(tmp_path: Path) -> Path:
    """A warehouse root holding the hand-made fixture runs r1 and r2 (no catalog yet)."""
    root = tmp_path / "data"
    write_fixture_warehouse(root)
    return root
