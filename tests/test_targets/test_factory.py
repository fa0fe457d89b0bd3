"""build_target and build_served_agent pick the right target for every target type."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import HttpTarget as HttpTargetConfig
from adat.config import LLMAgentTarget, ReferenceTarget, RunConfig
from adat.errors import UserError
from adat.serving import build_served_agent
from adat.targets import HttpTarget, PythonTarget, SideLogged, build_target
from adat_reference.agent import ReferenceAgent
from adat_reference.llm_agent import LLMAgent
from adat_reference.retail import default_db_path


def _build(target: object) -> object:
    cfg = RunConfig.model_validate({"target": target})
    return build_target(cfg.target, cfg)


def test_each_type_builds_its_target() -> None:
    reference = _build({"type": "reference", "database": str(default_db_path()), "fault": "cancel_any_reason"})
    assert isinstance(reference, ReferenceAgent) and isinstance(reference, SideLogged)
    assert reference.agent_id.endswith("+cancel_any_reason")
    http = _build({"type": "http", "base_url": "http://127.0.0.1:9/"})
    assert isinstance(http, HttpTarget) and http.agent_id == "http:http://127.0.0.1:9"
    python = _build({"type": "python", "factory": "tests.test_targets.sample_agents:make_echo"})
    assert isinstance(python, PythonTarget) and python.invoke(python.reset(), "x").text == "x"
    llm = _build({"type": "llm-agent", "model": "fake/unused", "fault": "cancel_any_reason"})
    assert isinstance(llm, LLMAgent) and llm.agent_id == "llm-agent:fake/unused+cancel_any_reason"


def test_reference_database_path_is_checked(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="file not found"):
        _build({"type": "reference", "database": str(tmp_path / "missing.json")})


def test_served_agent_takes_fault_from_flag_or_config() -> None:
    assert build_served_agent("reference", "cancel_any_reason", RunConfig()).agent_id.endswith("+cancel_any_reason")
    cfg = RunConfig(target=ReferenceTarget(fault="refund_any_method"))
    assert build_served_agent("reference", None, cfg).agent_id.endswith("+refund_any_method")
    llm_cfg = RunConfig(target=LLMAgentTarget(model="fake/unused"))
    served = build_served_agent("llm-agent", "cancel_any_reason", llm_cfg)
    assert isinstance(served, LLMAgent) and served.fault == "cancel_any_reason"
    assert build_served_agent("reference", None, RunConfig(target=HttpTargetConfig(base_url="http://x"))).agent_id \
        == "reference-retail"
