"""The scheduled deployment's flow: a run-config file in, a dated run and Prefect UI artifacts out."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
import yaml

from adat.cli.flow_loader import load_flow
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.slow


def test_nightly_runs_the_pipeline_with_a_dated_run_id_and_publishes_artifacts(prefect_harness, tmp_path: Path):
    cfg = small_demo_config(tmp_path / "data", sessions=4, n=4)
    path = tmp_path / "nightly.yaml"
    path.write_text(yaml.safe_dump(cfg.model_dump(mode="json")))

    run_id = load_flow("nightly")(config_path=str(path))

    assert re.fullmatch(r"nightly-\d{8}-\d{4}", run_id)
    runs = read_records(tmp_path / "data", "runs", run_id=run_id)
    assert runs and runs[-1].status == "completed" and runs[-1].flow == "pipeline"
    assert read_records(tmp_path / "data", "tests", run_id=run_id)

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    async def latest(key: str):  # type: ignore[no-untyped-def]
        async with get_client() as client:
            found = await client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])))
            return found

    summaries = asyncio.run(latest("adat-run-summary"))
    assert any(run_id in str(a.data) and "offline/heuristic" in str(a.data) for a in summaries)
    assert asyncio.run(latest("adat-verdicts"))
    report = tmp_path / "data" / "reports" / run_id / "report.html"
    assert report.is_file() and run_id in report.read_text(encoding="utf-8")
    links = asyncio.run(latest("adat-report"))
    assert any(report.resolve().as_uri() in str(a.data) for a in links)  # data is "[text](uri)"
    assert not asyncio.run(latest("adat-diff"))  # the first night has nothing to compare with

    later = load_flow("nightly")(config_path=str(path), run_prefix="later")
    diffs = asyncio.run(latest("adat-diff"))
    assert any(f"`{run_id}` → `{later}`" in str(a.data) and "pass → fail" in str(a.data) for a in diffs)
