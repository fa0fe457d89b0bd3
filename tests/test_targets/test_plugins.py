"""The built-in agents reach the tester only through the ``adat.targets`` entry points (issue #26)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import HttpTarget, RunConfig
from adat.errors import UserError
from adat.pipeline import fingerprint
from adat.targets import plugins
from adat_reference import target as shipped
from adat_reference.agent import ReferenceAgent
from adat_reference.agent.faults import fault_ids


def test_the_entry_points_load_the_shipped_plugins() -> None:
    assert plugins.target_plugin("reference") is shipped.REFERENCE
    assert plugins.target_plugin("llm-agent") is shipped.LLM_AGENT
    assert isinstance(shipped.REFERENCE, plugins.GroundTruth)
    assert isinstance(shipped.LLM_AGENT, plugins.FaultCatalog)
    assert not isinstance(shipped.LLM_AGENT, plugins.GroundTruth)  # audited by an LLM, never replayed


def test_an_unknown_kind_is_one_line_naming_the_field_and_the_installed_kinds() -> None:
    with pytest.raises(UserError) as err:
        plugins.target_plugin("no-such-agent")
    message = str(err.value)
    assert "\n" not in message and "target.type" in message and "reference" in message


def test_faults_and_ground_truth_come_from_the_plugin() -> None:
    faults = plugins.fault_catalog("reference")
    assert faults.fault_ids() == fault_ids() and len(faults.fault_ids()) >= 8
    assert faults.load_fault("cancel_any_reason").rule == "cancel_reason_accepted"
    truth = plugins.ground_truth("reference")
    agent = truth.replay_agent(truth.load_database(None), "cancel_any_reason")
    assert isinstance(agent, ReferenceAgent) and agent.agent_id == "reference-retail+cancel_any_reason"
    assert truth.rule_passage("cancel_reason_accepted") and truth.rule_passage("no_such_rule") is None
    with pytest.raises(UserError, match="cannot be audited from its side log"):
        plugins.ground_truth("llm-agent")


def test_the_plugin_code_enters_the_target_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tester's stage code no longer reaches the agent's, so its code is a target artifact."""
    cfg = RunConfig()
    before = fingerprint.target_digest(cfg)
    asked: list[str] = []
    monkeypatch.setattr(fingerprint, "plugin_code_digest", lambda kind: asked.append(kind) or f"edited {kind}")
    assert fingerprint.target_digest(cfg) != before and asked == ["reference"]
    fingerprint.target_digest(RunConfig(target=HttpTarget(base_url="http://127.0.0.1:9/")))
    assert asked == ["reference"]  # an endpoint is no plugin: its code is not ours to hash


def test_package_code_digest_counts_code_not_docstrings(tmp_path: Path) -> None:
    module = tmp_path / "agent.py"
    module.write_text('"""Says hi."""\n\ndef reply():\n    return "hi"\n', encoding="utf-8")
    first = fingerprint.package_code_digest(tmp_path)
    module.write_text('"""Greets the user."""\n\ndef reply():  # a comment\n    return "hi"\n', encoding="utf-8")
    assert fingerprint.package_code_digest(tmp_path) == first
    module.write_text('"""Greets the user."""\n\ndef reply():\n    return "hello"\n', encoding="utf-8")
    assert fingerprint.package_code_digest(tmp_path) != first
    assert fingerprint.plugin_code_digest("reference") == fingerprint.plugin_code_digest("llm-agent")
