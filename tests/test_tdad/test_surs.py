"""SURS on a hand-made v2 that changes one branch of a small spec (issue #28 item 6, Done when):
the reliability step files the v1 invariant tests by their v1 verdict and sql/metrics/tdad_surs
gives the share of v1-passing invariant tests that pass on v2 -- asserted as an exact figure and
exact lists. The agent is a fake that passes or fails by test id; everything else is the real step,
warehouse and SQL."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from adat.config import RunConfig
from adat.engine.stage_runner import run_stage
from adat.records import CompileIteration, SpecResult
from adat.tdad.spec_suite_figures import spec_metrics, summary_lines
from adat.warehouse import write_records
from tests.test_tdad.loop_fakes import LIBRARY_SPEC, SEED, result, spec_test

V1, V2 = "lib-v1", "lib-v2"
NEW_TOOL = {"name": "notify_member", "description": "Tell the member.",
            "output_schema": {"type": "object", "required": ["sent"], "properties": {"sent": {"type": "boolean"}}}}


def _specs(tmp_path: Path) -> tuple[Path, Path]:
    v2 = copy.deepcopy(LIBRARY_SPEC)
    v2["spec_id"], v2["version"] = "library_v2", "2.0"
    v2["decision_tree"][1]["branches"][0]["when"] = "ok and not overdue"  # the one changed branch
    v2["tools"].insert(0, NEW_TOOL)  # and a tool the v1 tests have no fixture for
    paths = tmp_path / "v1.yaml", tmp_path / "v2.yaml"
    paths[0].write_text(yaml.safe_dump(LIBRARY_SPEC))
    paths[1].write_text(yaml.safe_dump(v2))
    return paths


def _v1_tests() -> list[Any]:
    def t(test_id: str, leaf: str, path: list[str], clauses: list[str]) -> Any:
        return spec_test(test_id, clauses, leaf=leaf).model_copy(update={"run_id": V1, "node_path": path})

    return [t("ask_ok", "END_ASK", ["R1_START"], ["R1_START"]),               # invariant, passes on v1 and v2
            t("ask_broken", "END_ASK", ["R1_START"], ["L1_CARD_FIRST", "R1_START"]),  # passes v1, fails v2
            t("ask_v1_failed", "END_ASK", ["R1_START"], ["L2_NO_OVERDUE"]),   # failed on v1 already
            t("renew", "END_RENEWED", ["R1_START", "R2_RENEW"], ["R2_RENEW"]),  # through the changed branch
            t("renew_policy", "END_RENEWED", ["R1_START", "R2_RENEW"], ["L1_CARD_FIRST"])]


class _ByIdAgent:
    """Fails ``ask_broken`` (and any test without a fixture for v2's new tool) on v2."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def __call__(self, artifact: Any, test: Any, rerun: int) -> Any:
        self.ran.append(test.test_id)
        has_fixture = test.fixture("notify_member") is not None
        ok = test.test_id != "ask_broken" and has_fixture
        return result(test, dict.fromkeys(test.clauses, ok))


@pytest.fixture
def v2_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[RunConfig, _ByIdAgent, Path, Path]:
    cfg = RunConfig(data_dir=str(tmp_path / "data"))
    root = cfg.data_path()
    v1_spec, v2_spec = _specs(tmp_path)
    tests = _v1_tests()
    write_records(root, "spec_tests", tests, run_id=V1)
    passed_v1 = {"ask_ok", "ask_broken", "renew", "renew_policy"}
    write_records(root, "spec_reruns", [
        SpecResult(run_id=V1, result_id=f"k-{t.test_id}", spec_id="library_v1", spec_version="1.0",
                   test_id=t.test_id, split="visible", artifact_digest=SEED.digest(), scope="suite",
                   passed=t.test_id in passed_v1) for t in tests], run_id=V1)
    write_records(root, "compile_iterations", [CompileIteration(
        run_id=V2, spec_id="library_v2", spec_version="2.0", iteration=0, candidate_digest=SEED.digest(),
        promoted=True, in_effect_digest=SEED.digest(), start=V1, artifact_json=SEED.model_dump_json())], run_id=V2)
    agent = _ByIdAgent()
    monkeypatch.setattr("adat.tdad.spec_suite_steps._runner", lambda *a, **k: agent)
    return cfg, agent, v1_spec, v2_spec


def test_surs_is_the_share_of_v1_passing_invariant_tests_passing_on_v2(v2_run) -> None:
    cfg, agent, v1_spec, v2_spec = v2_run
    run_stage("spec-reliability", cfg, V2, spec_path=str(v2_spec), base_run=V1, base_spec_path=str(v1_spec))
    # the v2 run's own tests (none here) and the three invariant tests ran; the two through R2_RENEW did not
    assert sorted(agent.ran) == ["ask_broken", "ask_ok", "ask_v1_failed"]
    surs = spec_metrics(cfg, V2)["tdad_surs"]
    assert len(surs) == 1
    row = surs[0]
    assert (row["invariant_tests"], row["invariant_passed"]) == (2, 1) and row["surs"] == pytest.approx(1 / 2)
    assert row["broken"] == ["ask_broken"] and row["v1_failed"] == ["ask_v1_failed"] and row["not_runnable"] == []
    line = next(x for x in summary_lines(V2, spec_metrics(cfg, V2)) if x.startswith("- SURS"))
    assert "50% (1/2" in line and "broken: ask_broken" in line and "failed already on v1 (not counted): ask_v1_failed" in line


def test_invariant_tests_that_cannot_run_on_v2_are_listed_never_broken(v2_run, tmp_path: Path) -> None:
    cfg, agent, v1_spec, v2_spec = v2_run
    raw = yaml.safe_load(v2_spec.read_text())
    raw["tools"][0]["output_schema"]["properties"]["sent"] = {"type": "string", "pattern": "^yes$"}  # cannot be made
    raw["tools"][0]["output_schema"]["required"] = ["sent"]
    v2_spec.write_text(yaml.safe_dump(raw))
    run_stage("spec-reliability", cfg, V2, spec_path=str(v2_spec), base_run=V1, base_spec_path=str(v1_spec))
    assert agent.ran == []
    row = spec_metrics(cfg, V2)["tdad_surs"][0]
    assert row["not_runnable"] == ["ask_broken", "ask_ok", "ask_v1_failed"] and row["broken"] == []
    assert row["invariant_tests"] == 0 and row["surs"] is None
