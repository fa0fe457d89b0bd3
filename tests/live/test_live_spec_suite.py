"""Opt-in: one shipped TDAD spec version through the spec-suite flow with a real model in every
TDAD role and as the built agent.

    ADAT_LIVE_MODEL=openai/gpt-4o-mini OPENAI_API_KEY=... [ADAT_LIVE_BASE_URL=...] \\
        .venv/bin/python -m pytest tests/live/test_live_spec_suite.py --runlive

Skipped unless --runlive is given (these tests call a paid endpoint).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adat.cli.flow_loader import load_flow
from adat.config import RunConfig, SpecSuiteConfig
from adat.warehouse import read_records

pytestmark = pytest.mark.live


def test_spec_suite_with_a_real_model(prefect_harness, shared_dir: Path, tmp_path: Path) -> None:
    model = os.environ.get("ADAT_LIVE_MODEL")
    if not model:
        pytest.skip("set ADAT_LIVE_MODEL=provider/model (and the provider's API key) for live tests")
    tdad = shared_dir / "benchmarks" / "tdad"
    cfg = RunConfig(run_id="live-spec-1", data_dir=str(tmp_path / "data"),
                    spec_suite=SpecSuiteConfig(reruns=2, max_iterations=2))
    cfg.models = cfg.models.model_copy(update=dict.fromkeys(("testsmith", "promptsmith", "mutationsmith",
                                                             "spec_agent"), model))
    if os.environ.get("ADAT_LIVE_BASE_URL"):
        cfg.llm.base_url = os.environ["ADAT_LIVE_BASE_URL"]
    run_id = load_flow("spec_suite")(config=cfg, spec_path=str(tdad / "specs/supportops/v1/spec.yaml"),
                                     start=str(tdad / "agent_artifacts/supportops"),
                                     pack_path=str(tdad / "mutation_packs/supportops/mutations.yaml"))
    root = tmp_path / "data"
    calls = read_records(root, "llm_calls", run_id=run_id)
    assert calls and {c.role for c in calls} >= {"testsmith", "promptsmith", "spec_agent"}
    assert sum(1 for c in calls if c.error) <= len(calls) // 10
    assert read_records(root, "compile_iterations", run_id=run_id)
    assert read_records(root, "spec_reruns", run_id=run_id)
    assert read_records(root, "mutants", run_id=run_id)
