"""``llm.max_failed_share``: a step fails when one tester role's calls failed beyond it; the agent
under test's own calls never count (issue 29, runs fail when their models do)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from adat.config import RunConfig
from adat.engine.context import RunContext
from adat.errors import StageFailed


def _ctx(tmp_path: Path, share: float, made: int, failed: int, role: str = "planner") -> RunContext:
    cfg = RunConfig.model_validate({"data_dir": str(tmp_path), "llm": {"max_failed_share": share}})
    ctx = RunContext(cfg, "r1")
    ctx._client = SimpleNamespace(role_calls={role: made}, role_failures={role: failed},
                                  last_error={role: "HTTP 500\nbody"}, role_invalid={})
    return ctx


def test_a_role_failing_beyond_the_share_fails_the_step_naming_the_role(tmp_path: Path) -> None:
    with pytest.raises(StageFailed, match="3 of 4 planner calls failed, more than llm.max_failed_share 0.5"):
        _ctx(tmp_path, 0.5, 4, 3).check_models("discovery")
    _ctx(tmp_path, 0.5, 4, 2).check_models("discovery")       # at the share: still a result


def test_the_share_is_the_configs(tmp_path: Path) -> None:
    _ctx(tmp_path, 0.8, 4, 3).check_models("discovery")       # 3 of 4 is within 0.8
    with pytest.raises(StageFailed):
        _ctx(tmp_path, 0.0, 4, 1).check_models("discovery")   # 0: any failed call fails the step
    _ctx(tmp_path, 0.0, 4, 4, role="agent").check_models("execution")  # the agent's calls are its behaviour
