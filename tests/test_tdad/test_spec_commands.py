"""`adat spec` commands (issue #27 item 4, #28 item 6): compile and mutate need an agent that reads
the prompt (one line, exit 2 otherwise); lint's errors vs warnings as docs/spec_tests.md decides;
`spec demo --spec` pairs a v2 with its v1; the summary names who played each role."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from adat.config import HttpTarget, LLMAgentTarget, RoleModels, RunConfig, SpecSuiteConfig
from adat.tdad.spec_suite_figures import role_lines
from adat.tdad.target_fit import target_fit
from tests.test_tdad.loop_fakes import LIBRARY_SPEC


def _run(*args: str) -> tuple[int, list[str]]:
    proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "400"})
    return proc.returncode, [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]


@pytest.mark.parametrize("command", ["compile", "mutate"])
def test_compile_and_mutate_refuse_an_agent_that_does_not_read_the_prompt(tmp_path: Path, command: str) -> None:
    spec, config, data = tmp_path / "spec.yaml", tmp_path / "c.yaml", tmp_path / "data"
    spec.write_text(yaml.safe_dump(LIBRARY_SPEC))
    config.write_text(yaml.safe_dump({"target": {"type": "http", "base_url": "http://127.0.0.1:9"}}))
    extra = ["--run", "r1"] if command == "mutate" else []
    code, lines = _run("spec", command, str(spec), "--config", str(config), "--data-dir", str(data), *extra)
    assert code == 2 and len(lines) == 1, lines
    assert f"`adat spec {command}` needs an agent that reads the compiled prompt" in lines[0]
    assert "target.type" in lines[0] and "adat spec run" in lines[0]
    assert not data.exists() or not any(data.rglob("*"))


def test_an_llm_agent_target_is_the_built_spec_agent_on_its_model() -> None:
    cfg = RunConfig(target=LLMAgentTarget(model="openai/m1"), spec_suite=SpecSuiteConfig(use_target=True))
    fit = target_fit(cfg)
    assert fit.prompt_driven and fit.agent_model == "openai/m1" and not fit.skipped_line()
    http = target_fit(cfg.model_copy(update={"target": HttpTarget(base_url="http://x")}))
    assert not http.prompt_driven and "skipped" in http.skipped_line()
    assert target_fit(RunConfig()).kind == "spec-agent"  # without use_target: the built agent


def test_lint_warns_on_a_used_undeclared_end_leaf_and_errs_on_a_dangling_branch(tmp_path: Path) -> None:
    raw = copy.deepcopy(LIBRARY_SPEC)
    raw["decision_tree"][1]["branches"].append({"when": "lost card", "next": "END_CARD_LOST"})  # used, undeclared
    spec = tmp_path / "leaf.yaml"
    spec.write_text(yaml.safe_dump(raw))
    code, lines = _run("spec", "lint", str(spec))
    assert code == 0 and "warning" in lines[0] and "[undeclared-leaf]" in lines[0] and "0 error(s), 1 warning(s)" in lines[-1]
    for target, hint in (("R3_FINE", ""), ("END_RENEWD", "did you mean 'END_RENEWED'")):  # a missing node, a typo
        raw["decision_tree"][1]["branches"][-1]["next"] = target
        spec.write_text(yaml.safe_dump(raw))
        code, lines = _run("spec", "lint", str(spec))
        assert code == 1 and "error" in lines[0] and "[dangling-branch]" in lines[0] and hint in lines[0], lines


def test_role_wording_comes_from_the_providers() -> None:
    offline = role_lines(RunConfig())
    assert offline == ["_every role and the built agent played by offline/heuristic, a rule-based stand-in, "
                       "not a language model_"]
    real_agent = role_lines(RunConfig(models=RoleModels(spec_agent="openai/gpt-x")))
    assert "every role" not in real_agent[0] and "the built agent: openai/gpt-x" in real_agent[0]
    assert "testsmith, promptsmith, mutationsmith: offline/heuristic (a rule-based stand-in" in real_agent[0]
    on_llm_agent = role_lines(RunConfig(target=LLMAgentTarget(model="openai/m1"),
                                        spec_suite=SpecSuiteConfig(use_target=True)))
    assert "the built agent: openai/m1" in on_llm_agent[0]


def test_spec_demo_spec_pairs_a_v2_with_its_v1_and_checks_every_file_first(tmp_path: Path) -> None:
    from adat.cli.spec_suite_cmd import _demo_step

    specs = tmp_path / "tdad" / "specs" / "library"
    for version in ("v1", "v2"):
        (specs / version).mkdir(parents=True)
        raw = {**copy.deepcopy(LIBRARY_SPEC), "version": f"{version[1]}.0"}
        (specs / version / "spec.yaml").write_text(yaml.safe_dump(raw))
    seed = tmp_path / "tdad" / "agent_artifacts" / "library"
    seed.mkdir(parents=True)
    (seed / "seed_prompt.txt").write_text("You are the library desk.")
    v1, v2 = specs / "v1" / "spec.yaml", specs / "v2" / "spec.yaml"
    assert _demo_step(v1, []) == (v1, None)
    assert _demo_step(v2, [v1]) == (v2, v1)      # evolves from the v1 run of the same demo
    assert _demo_step(v2, []) == (v2, None)      # alone: run as `spec run` would
    code, lines = _run("spec", "demo", "--spec", str(v1), "--spec", str(tmp_path / "nope.yaml"),
                       "--data-dir", str(tmp_path / "data"))
    assert code == 2 and len(lines) == 1 and "nope.yaml" in lines[0] and "--spec" in lines[0], lines
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*.parquet"))


def test_an_llm_agent_target_runs_the_built_agent_with_the_tests_fixtures(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from adat.llm.client import LLMClient
    from adat.spec_records import SpecAssertion, SpecTest, ToolFixture
    from adat.tdad.artifact import PromptArtifact
    from adat.tdad.spec_loader import parse_spec
    from adat.tdad.spec_suite_steps import _runner
    from tests.support.tdad_spec import LIBRARY_SEED_PROMPT, library_spec

    cfg = RunConfig(data_dir=str(tmp_path / "data"), models=RoleModels(spec_agent="openai/never-called"),
                    target=LLMAgentTarget(model="offline/heuristic"), spec_suite=SpecSuiteConfig(use_target=True))
    ctx = SimpleNamespace(client=LLMClient(cfg, "r1"), run_id="r1")
    spec = parse_spec(library_spec())
    fixtures = [ToolFixture(tool=t.name, output_json='{"fixture": "' + t.name + '"}') for t in spec.tools]
    test = SpecTest(test_id="t", run_id="r1", spec_id="library_v1", spec_version="1.0", family="MFT",
                    split="visible", leaf_id="END_LOAN_RENEWED", clauses=["R5_RENEW"], fixtures=fixtures,
                    user_turns=["please renew my loan, card 7"],
                    assertions=[SpecAssertion(kind="tool_called", clause="R5_RENEW", tools=["renew_loan"])])
    got = _runner(cfg, ctx, spec)(PromptArtifact(system_prompt=LIBRARY_SEED_PROMPT, tool_descriptions={}), test, 0)
    assert got.target == "spec-agent:offline/heuristic"  # the target's model, not models.spec_agent
    calls = [c for turn in got.turns for c in turn.tool_calls or [] if c.name != "respond" and not c.error]
    assert calls and all(c.result_json == f'{{"fixture": "{c.name}"}}' for c in calls)  # the fixtures reached it
