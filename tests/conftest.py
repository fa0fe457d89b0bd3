"""Shared pytest options and fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO / ".." / "shared").resolve()

# No test may reach a real endpoint or a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runlive", action="store_true", default=False,
                     help="run tests marked live (they call a real LLM endpoint)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runlive"):
        return
    skip_live = pytest.mark.skip(reason="live test: needs a real LLM endpoint; pass --runlive to run it")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip_live)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared next to the checkout (benchmarks, seeds); tests needing it skip when absent."""
    if not (SHARED / "benchmarks").is_dir():
        pytest.skip(f"../shared/benchmarks not found at {SHARED} (only present on the developers' machines)")
    return SHARED


@pytest.fixture(scope="session")
def prefect_harness():
    """A real, ephemeral Prefect API (SQLite) for flow tests; one per test session."""
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield


@pytest.fixture()
def small_run_config(tmp_path: Path):
    """A demo-shaped run config (reference agent, offline provider) with a small budget."""
    from tests.support.demo_config import small_demo_config

    return small_demo_config(tmp_path / "data", sessions=6, n=6)


@pytest.fixture(autouse=True)
def _forget_secrets():
    """Secrets a test registers (adat.redaction is process-wide) are not masked in the next test."""
    yield
    from adat import redaction

    redaction.forget_all()
