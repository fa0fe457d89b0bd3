"""No silent stand-in (issue 25, item 8): a config whose target is not the reference agent must name
every role the command uses — a real provider, or offline/heuristic on purpose — or the command
stops with one line naming the role and exit 2, before any flow starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from adat.config import OFFLINE_MODEL, RunConfig
from adat.engine.config_checks import check_roles_named, roles_used
from adat.errors import UserError

ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]
#: an http target nothing listens on: the role check must fail before preflight would try it
TARGET = {"type": "http", "base_url": "http://127.0.0.1:9/agent", "timeout_s": 1}


def adat(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ADAT, *args], capture_output=True, text=True, timeout=120)


def write(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({"data_dir": str(tmp_path / "data"), **fields}))
    return path


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_run_suite_with_an_unset_judge_exits_2_naming_the_role(tmp_path: Path) -> None:
    # every role but the judge named: run-suite uses only the judge, so the judge is what is missing
    models = {role: "openai/m" for role in ("planner", "driver", "extractor", "grounder", "generator", "auditor")}
    config = write(tmp_path, target=TARGET, models=models)
    line = one_line(adat("run-suite", "--config", str(config), "--suite", "some-run"))
    assert line.startswith(f"error: {config}: models.judge: not set")
    assert "adat run-suite uses the judge role" in line and OFFLINE_MODEL in line and "fix:" in line
    assert not (tmp_path / "data").exists()  # before any flow: nothing was written


def test_run_names_every_unset_role_it_uses_in_one_line(tmp_path: Path) -> None:
    config = write(tmp_path, target=TARGET, models={"judge": "openai/m", "generator": "openai/m"})
    line = one_line(adat("run", "--config", str(config)))
    assert "models.planner: not set (nor models.driver, models.extractor, models.grounder)" in line
    assert "adat run uses the roles planner, driver, extractor, grounder" in line
    assert "judge" not in line.split("uses")[1].split("which")[0]  # named roles are not listed
    assert not (tmp_path / "data").exists()


def test_config_check_checks_the_roles_of_the_command_it_is_for(tmp_path: Path) -> None:
    config = write(tmp_path, target=TARGET, models={"judge": "openai/m"})
    assert "models.planner: not set" in one_line(adat("config", "check", str(config)))  # default: --for run
    ok = adat("config", "check", str(config), "--for", "run-suite")
    assert ok.returncode == 0, ok.stderr
    assert "models.auditor: not set" in one_line(adat("config", "check", str(config), "--for", "evaluate"))


def test_the_stand_in_written_out_on_purpose_and_the_reference_target_pass(tmp_path: Path) -> None:
    explicit = write(tmp_path, target=TARGET, models={"judge": OFFLINE_MODEL})
    assert adat("config", "check", str(explicit), "--for", "run-suite").returncode == 0
    reference = write(tmp_path, target={"type": "reference", "fault": "cancel_any_reason"})
    assert adat("config", "check", str(reference)).returncode == 0  # the demo's offline world keeps its defaults


@pytest.mark.parametrize(("command", "selector", "expected"), [
    ("run", "pooled", ["planner", "driver", "extractor", "grounder", "generator", "judge"]),
    ("run", "llm", ["planner", "driver", "extractor", "grounder", "generator", "judge", "selector"]),
    ("run-suite", "pooled", ["judge"]),
    ("evaluate", "pooled", ["auditor", "judge"]),
])
def test_roles_used_per_command(command: str, selector: str, expected: list[str]) -> None:
    cfg = RunConfig.model_validate({"selector": {"name": selector}})
    assert roles_used(cfg, command) == expected


def test_python_and_llm_agent_targets_are_checked_too() -> None:
    for target in ({"type": "python", "factory": "x:y"}, {"type": "llm-agent", "model": "openai/agent"}):
        cfg = RunConfig.model_validate({"target": target, "models": {"planner": "openai/m"}})
        with pytest.raises(UserError, match=r"^models\.judge: not set"):
            check_roles_named(cfg, "run-suite")
