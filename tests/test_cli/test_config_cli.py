"""The CLI as a user meets it: `--help` everywhere, config validation, one-line errors, exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from adat.cli.main import app
from adat.config import OFFLINE_MODEL, RunConfig
from adat.engine.config_checks import roles_used

ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]


def adat(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ADAT, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def _commands() -> list[list[str]]:
    import typer.main

    group = typer.main.get_command(app)
    out: list[list[str]] = []
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        sub = getattr(cmd, "commands", None)
        if sub:
            out += [[name, s] for s in sub]
        else:
            out.append([name])
    return out


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c))
def test_every_command_has_help(command: list[str]) -> None:
    proc = adat(*command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout and len(proc.stdout.strip().splitlines()) > 3


@pytest.mark.parametrize(("text", "field"), [
    ("selector:\n  gama: 0.3\n", "selector.gama"),
    ("selector:\n  gamma: 3\n", "selector.gamma"),
    ("target:\n  type: http\n", "base_url"),
    ("discovery:\n  sessions: many\n", "discovery.sessions"),
    ("models:\n  judge: 5\n", "models.judge"),
])
def test_malformed_config_is_one_line_naming_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(text)
    proc = adat("config", "check", str(path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert field in lines[0] and str(path) in lines[0] and "fix:" in lines[0]
    assert "Traceback" not in proc.stderr


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    missing = adat("config", "check", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "file not found" in missing.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("selector: [unclosed\n")
    proc = adat("config", "check", str(bad))
    assert proc.returncode == 2 and "not valid YAML" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_show_defaults_is_a_valid_config(tmp_path: Path) -> None:
    shown = adat("config", "show-defaults")
    assert shown.returncode == 0
    path = tmp_path / "defaults.yaml"
    path.write_text(shown.stdout)
    assert RunConfig.model_validate(yaml.safe_load(shown.stdout)) == RunConfig()
    assert "# optimism: E[theta] + kappa * sd[theta]\n  kappa: 0.5" in shown.stdout  # described, in place
    checked = adat("config", "check", str(path))
    assert checked.returncode == 0, checked.stderr


def test_unknown_fault_is_a_user_error() -> None:
    proc = adat("serve-agent", "reference", "--fault", "no_such_fault", "--port", "0")
    assert proc.returncode == 2
    assert "no_such_fault" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_unreachable_http_target_fails_preflight(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    # every role `adat run` uses named (the offline stand-in on purpose), so preflight is what fails
    path.write_text(yaml.safe_dump({"target": {"type": "http", "base_url": "http://127.0.0.1:9/agent",
                                               "timeout_s": 2},
                                    "models": dict.fromkeys(roles_used(RunConfig(), "run"), OFFLINE_MODEL)}))
    proc = adat("run", "--config", str(path), "--data-dir", str(tmp_path / "data"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    line = proc.stderr.strip().splitlines()
    assert len(line) == 1 and "target.base_url" in line[0]
