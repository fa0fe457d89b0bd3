"""The shipped TDAD specs and packs load; lint finds their real defects; bad files give one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adat.errors import UserError
from adat.tdad.artifact import seed_artifact
from adat.tdad.spec_loader import key_path, lint_spec, load_mutation_pack, load_spec

AGENTS = ("supportops", "expenseguard")


def _tdad(shared_dir: Path) -> Path:
    return shared_dir / "benchmarks" / "tdad"


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("version", ("v1", "v2"))
def test_shipped_specs_load(shared_dir: Path, agent: str, version: str) -> None:
    spec = load_spec(_tdad(shared_dir) / "specs" / agent / version / "spec.yaml")
    assert spec.spec_id == f"{agent}_{version}"
    assert spec.version_label() == version
    assert "respond" in spec.tool_names() and spec.decisions()
    assert spec.leaves()
    assert spec.defaults.reliability.reruns >= 1 and spec.defaults.compile_budget.max_iterations >= 1
    if version == "v2" and agent == "supportops":
        assert spec.tests.v1_invariants is not None and spec.tests.v1_invariants.preserved_behaviors


@pytest.mark.parametrize("agent", AGENTS)
def test_shipped_packs_and_seed_artifacts_load(shared_dir: Path, agent: str) -> None:
    pack = load_mutation_pack(_tdad(shared_dir) / "mutation_packs" / agent / "mutations.yaml")
    assert pack.generator.max_attempts >= 1 and all(m.activation_probe.user_turns for m in pack.mutations)
    artifact = seed_artifact(_tdad(shared_dir) / "agent_artifacts" / agent)
    assert "respond" in artifact.tool_descriptions and artifact.system_prompt.strip()
    assert artifact.digest() != artifact.model_copy(update={"system_prompt": artifact.system_prompt + "x"}).digest()


def test_lint_reports_the_real_defects(shared_dir: Path) -> None:
    tdad = _tdad(shared_dir)
    for version in ("v1", "v2"):  # SupportOps: clean, its pack included
        spec = load_spec(tdad / "specs" / "supportops" / version / "spec.yaml")
        assert lint_spec(spec, load_mutation_pack(tdad / "mutation_packs" / "supportops" / "mutations.yaml")) == []
    # ExpenseGuard branches to END_* leaves it never declares: usable leaves, warnings (docs/spec_tests.md)
    spec = load_spec(tdad / "specs" / "expenseguard" / "v1" / "spec.yaml")
    findings = lint_spec(spec, load_mutation_pack(tdad / "mutation_packs" / "expenseguard" / "mutations.yaml"))
    assert {(f.code, f.severity) for f in findings} == {("undeclared-leaf", "warning")}
    assert {f.message.split("'")[1] for f in findings} == {"END_REQUEST_INFO", "END_REJECT", "END_APPROVE"}
    assert "decision_tree[0].branches[0].next" in {f.path for f in findings}


def test_corrupted_copy_names_the_key_path(shared_dir: Path, tmp_path: Path) -> None:
    raw = yaml.safe_load((_tdad(shared_dir) / "specs" / "supportops" / "v1" / "spec.yaml").read_text())
    del raw["decision_tree"][3]["branches"][0]["next"]
    bad = tmp_path / "spec.yaml"
    bad.write_text(yaml.safe_dump(raw))
    with pytest.raises(UserError) as err:
        load_spec(bad)
    line = str(err.value)
    assert "\n" not in line and str(bad) in line and "decision_tree[3].branches[0].next" in line
    raw["decision_tree"][3]["branches"][0]["next"] = "N1_INTENT"
    raw["tools"][1]["retry_policy"]["retires"] = 2
    bad.write_text(yaml.safe_dump(raw))
    with pytest.raises(UserError, match=r"tools\[1\]\.retry_policy\.retires: unknown key"):
        load_spec(bad)


def test_unquoted_yaml_on_key_is_read_as_on(tmp_path: Path) -> None:
    from adat.contracts.tdad_spec import RetryPolicy
    assert RetryPolicy.model_validate(yaml.safe_load("retries: 1\non: [timeout]\n")).on == ["timeout"]


def test_key_path_and_missing_file(tmp_path: Path) -> None:
    assert key_path(("decision_tree", 3, "branches", 0, "next")) == "decision_tree[3].branches[0].next"
    with pytest.raises(UserError, match="file not found"):
        load_spec(tmp_path / "nope.yaml")
    (tmp_path / "list.yaml").write_text("- a\n")
    with pytest.raises(UserError, match="top level must be a mapping"):
        load_mutation_pack(tmp_path / "list.yaml")
