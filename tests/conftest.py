"""Shared pytest options and fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def prefect_api_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API URL of one real Prefect server (``prefect server start``, as ``adat server start`` runs
    it) shared by the whole test session. A command a test starts with ``PREFECT_API_URL`` set to it
    uses it instead of starting Prefect's temporary server of its own (≈ 8 s a command here, more
    under load). Only for tests whose subject is not the temporary server itself. A server the
    developer exported (``PREFECT_API_URL``) is used as is, as those commands did before."""
    from tests.support.prefect_server import running_prefect_server

    if os.environ.get("PREFECT_API_URL"):
        yield os.environ["PREFECT_API_URL"]
        return
    with running_prefect_server(tmp_path_factory.mktemp("session-prefect") / "data") as server:
        yield server.api_url


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


@pytest.fixture(autouse=True)
def _no_pool_parent_left(monkeypatch: pytest.MonkeyPatch):
    """A flow a test runs in this process names this process the parent of its fault pool in the
    environment (flows._fault_runner.fork_server); a command a later test starts must not inherit
    that as if this process were its flow."""
    from flows._fault_guard import PARENT_ENV

    monkeypatch.delenv(PARENT_ENV, raising=False)  # and whatever a test set is removed at its end
    yield
