"""What the README tells a new user must hold: its two commands and its example config."""

from __future__ import annotations

import re
from pathlib import Path

from adat.config import load_run_config

README = Path(__file__).resolve().parents[1] / "README.md"
CI = Path(__file__).resolve().parents[1] / ".ci" / "run"


def test_readme_starts_with_the_two_setup_commands_and_ci_runs_the_second() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert first_block is not None
    commands = [line for line in first_block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert commands[0].endswith("adat demo") and "pip install" in commands[0]
    ci = CI.read_text(encoding="utf-8")
    assert commands[1] in ci
    assert commands[0].split(" && .venv/bin/adat demo")[0] in ci


def test_readme_example_config_is_valid(tmp_path: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks
    for i, block in enumerate(blocks):
        path = tmp_path / f"example{i}.yaml"
        path.write_text(block)
        cfg = load_run_config(path)
        assert cfg.target.type == "http"
