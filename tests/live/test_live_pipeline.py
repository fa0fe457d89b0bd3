"""Opt-in: the whole pipeline with a real model for every tester role.

    ADAT_LIVE_MODEL=openai/gpt-4o-mini OPENAI_API_KEY=... [ADAT_LIVE_BASE_URL=...] \\
        .venv/bin/python -m pytest tests/live --runlive

Skipped unless --runlive is given (these tests call a paid endpoint).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adat.cli.flow_loader import load_flow
from adat.config import ROLES, RoleModels
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.live


def test_pipeline_with_a_real_model(prefect_harness, tmp_path: Path) -> None:
    model = os.environ.get("ADAT_LIVE_MODEL")
    if not model:
        pytest.skip("set ADAT_LIVE_MODEL=provider/model (and the provider's API key) for live tests")
    cfg = small_demo_config(tmp_path / "data", sessions=3, n=3, run_id="live-1",
                            models=RoleModels(**dict.fromkeys(ROLES, model)))
    if os.environ.get("ADAT_LIVE_BASE_URL"):
        cfg = cfg.model_copy(update={"llm": cfg.llm.model_copy(update={"base_url": os.environ["ADAT_LIVE_BASE_URL"]})})
    run_id = load_flow("pipeline")(config=cfg)
    root = tmp_path / "data"
    calls = read_records(root, "llm_calls", run_id=run_id)
    assert calls and all(f"{c.provider}/{c.model}" == model for c in calls)
    assert sum(1 for c in calls if c.error) <= len(calls) // 10
    assert read_records(root, "statements", run_id=run_id)
    assert read_records(root, "verdicts", run_id=run_id)
