from __future__ import annotations

from pathlib import Path

import pytest

from adat.warehouse import build_catalog
from tests.test_sql.warehouse_fixture import write_metrics_fixture

#: the project's own sql/ folder
SQL_DIR = Path(__file__).resolve().parents[2] / "sql"


@pytest.fixture(scope="module")
def fixture_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The catalog of the consistent hand-made warehouse (runs r1 and r2); read-only use."""
    root = write_metrics_fixture(tmp_path_factory.mktemp("warehouse") / "data")
    return build_catalog(root, SQL_DIR)
