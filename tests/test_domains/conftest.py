"""Fixtures for the retail domain tests: the generated database, built once per session."""

from __future__ import annotations

import pytest

from adat_reference.retail.database import RetailDB
from adat_reference.retail.generate import generate_retail_db
from adat_reference.retail.tools import RetailTools


@pytest.fixture(scope="session")
def generated_db() -> RetailDB:
    return generate_retail_db()


@pytest.fixture()
def db(generated_db: RetailDB) -> RetailDB:
    """A fresh copy per test: tools mutate it."""
    return generated_db.copy_fresh()


@pytest.fixture()
def tools(db: RetailDB) -> RetailTools:
    return RetailTools(db)
