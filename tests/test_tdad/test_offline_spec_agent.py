"""A spec written in this test (other tools and decisions than the shipped ones) goes through
load -> lint -> TestSmith -> runner with every role offline; the offline agent follows only
what its prompt says, so a prompt with the spec's clauses passes and a prompt without one fails."""

from __future__ import annotations

from pathlib import Path

import yaml

from adat.config import RunConfig
from adat.llm.client import LLMClient
from adat.tdad.artifact import PromptArtifact
from adat.tdad.pack_model import MutationPack
from adat.tdad.runner import run_spec_test
from adat.tdad.spec_loader import lint_spec, load_spec
from adat.tdad.testsmith import generate_tests
from tests.support.tdad_spec import LIBRARY_SEED_PROMPT, clause_prompt, library_pack, library_spec


def _setup(tmp_path: Path):
    path = tmp_path / "librarydesk" / "v1" / "spec.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(library_spec()))
    spec = load_spec(path)
    assert lint_spec(spec, MutationPack.model_validate(library_pack())) == []
    cfg = RunConfig(data_dir=str(tmp_path / "data"))
    client = LLMClient(cfg, "r1", cache_dir=tmp_path / "cache")
    return cfg, client, spec, generate_tests(client, spec, seed=0, run_id="r1")


def _pass_rate(cfg, client, spec, artifact, tests) -> dict[str, set[str]]:
    passed: dict[str, set[str]] = {"visible": set(), "hidden": set()}
    for test in tests:
        result = run_spec_test(cfg, client, spec, artifact, test, run_id="r1")
        assert result.target == "spec-agent:offline/heuristic"
        if result.passed:
            passed[test.split].add(test.test_id)
    return passed


def test_clauses_in_the_prompt_decide_what_the_offline_agent_does(tmp_path: Path) -> None:
    cfg, client, spec, tests = _setup(tmp_path)
    visible = {t.test_id for t in tests if t.split == "visible"}
    hidden = {t.test_id for t in tests if t.split == "hidden"}
    seed = _pass_rate(cfg, client, spec, PromptArtifact(system_prompt=LIBRARY_SEED_PROMPT), tests)
    full = _pass_rate(cfg, client, spec, PromptArtifact(system_prompt=clause_prompt(spec)), tests)
    assert full["visible"] == visible and full["hidden"] == hidden  # the whole spec in the prompt: all pass
    assert len(seed["visible"]) < len(visible) / 2  # the seed prompt says almost nothing
    # without the member-check step and its policy, renewals skip check_member: the gate tests fail
    weak = _pass_rate(cfg, client, spec,
                      PromptArtifact(system_prompt=clause_prompt(spec, drop=("R2_MEMBER", "L2_MEMBER_FIRST"))), tests)
    lost = visible - weak["visible"]
    assert lost and all(t.leaf_id in ("END_LOAN_RENEWED", "END_MEMBER_REJECTED", "END_RENEWAL_REFUSED")
                        for t in tests if t.test_id in lost)
    gate_tests = [t for t in tests if any(a.kind == "auth_gate" for a in t.assertions) and t.split == "visible"]
    assert gate_tests and all(t.test_id in lost for t in gate_tests)


def test_the_probe_of_a_removed_clause_holds_only_on_the_weakened_prompt(tmp_path: Path) -> None:
    from adat.spec_records import SpecAssertion, SpecTest, ToolFixture

    cfg, client, spec, tests = _setup(tmp_path)
    probe = MutationPack.model_validate(library_pack()).mutations[0].activation_probe
    renew = next(t for t in tests if t.leaf_id == "END_LOAN_RENEWED" and t.family == "MFT")
    test = SpecTest(test_id="probe", run_id="r1", spec_id=spec.spec_id, spec_version=spec.version, family="MFT",
                    split="visible", leaf_id="probe", user_turns=probe.user_turns,
                    fixtures=[ToolFixture.model_validate(f.model_dump()) for f in renew.fixtures],
                    assertions=[SpecAssertion(kind="tool_called", clause="probe", tools=["renew_loan"]),
                                SpecAssertion(kind="tool_not_called", clause="probe", tools=["check_member"])])
    base = run_spec_test(cfg, client, spec, PromptArtifact(system_prompt=clause_prompt(spec)), test, run_id="r1")
    mutant = run_spec_test(cfg, client, spec, PromptArtifact(
        system_prompt=clause_prompt(spec, drop=("R2_MEMBER", "L2_MEMBER_FIRST"))), test, run_id="r1")
    assert not base.passed and mutant.passed
