"""`adat spec compile|run|evolve|mutate|demo`: a user's mistake is one line naming the file or
option and the fix, exit 2, before any flow starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.test_tdad.loop_fakes import LIBRARY_SPEC


def _run(*args: str) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "400"})
    return proc.returncode, proc.stdout + proc.stderr


def test_missing_spec_file(tmp_path: Path) -> None:
    code, out = _run("spec", "run", str(tmp_path / "nope.yaml"), "--seed", str(tmp_path))
    assert code == 2 and "spec file not found" in out and "nope.yaml" in out and "Traceback" not in out


def test_missing_seed_prompt(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(LIBRARY_SPEC))
    code, out = _run("spec", "compile", str(spec), "--seed", str(tmp_path / "no-seed"), "--data-dir", str(tmp_path))
    assert code == 2 and "seed prompt not found" in out and "--seed" in out and "Traceback" not in out


def test_mutating_a_run_without_a_compiled_prompt(tmp_path: Path) -> None:
    spec, pack = tmp_path / "spec.yaml", tmp_path / "pack.yaml"
    spec.write_text(yaml.safe_dump(LIBRARY_SPEC))
    pack.write_text(yaml.safe_dump({"mutation_pack_id": "p", "mutations": [{
        "id": "M", "intent": "x", "activation_probe": {"user_turns": ["hi"], "expect_violation": {}}}]}))
    code, out = _run("spec", "mutate", str(spec), "--run", "no-such-run", "--pack", str(pack),
                     "--data-dir", str(tmp_path))
    assert code == 2 and "has no compiled prompt" in out and "adat spec compile" in out


def test_demo_needs_the_benchmark_folder(tmp_path: Path) -> None:
    code, out = _run("spec", "demo", "--tdad", str(tmp_path / "missing"), "--data-dir", str(tmp_path))
    assert code == 2 and "TDAD benchmark folder not found" in out and "--tdad" in out


def test_a_bad_pack_is_one_line_before_any_flow_and_writes_nothing(tmp_path: Path) -> None:
    spec, pack, seed, data = tmp_path / "spec.yaml", tmp_path / "pack.yaml", tmp_path / "seed", tmp_path / "data"
    spec.write_text(yaml.safe_dump(LIBRARY_SPEC))
    seed.mkdir()
    (seed / "seed_prompt.txt").write_text("You are a library desk agent.")
    pack.write_text(yaml.safe_dump({"mutation_pack_id": "p", "mutations": [{
        "id": "M", "intent": "x", "activation_probe": {"user_turns": ["hi"], "expect_violation": {
            "json": {"field_inn": {"decision": ["RENEWED"]}}}}}]}))
    code, out = _run("spec", "run", str(spec), "--seed", str(seed), "--pack", str(pack), "--data-dir", str(data))
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, out
    assert str(pack) in lines[0] and "expect_violation.json.field_inn" in lines[0]
    assert "field_in" in lines[0].split("fix")[1] and "spec shape" not in lines[0]
    assert not data.exists() or not any(data.rglob("*"))
    code, out = _run("spec", "mutate", str(spec), "--run", "r1", "--pack", str(pack), "--data-dir", str(data))
    assert code == 2 and "field_inn" in out and "has no compiled prompt" not in out


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:  # bound then closed: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_spec_run_honours_target_and_a_closed_port_is_one_line_before_any_flow(tmp_path: Path) -> None:
    spec, seed, data, config = tmp_path / "spec.yaml", tmp_path / "seed", tmp_path / "data", tmp_path / "c.yaml"
    spec.write_text(yaml.safe_dump(LIBRARY_SPEC))
    seed.mkdir()
    (seed / "seed_prompt.txt").write_text("You are a library desk agent.")
    config.write_text(yaml.safe_dump({"target": {"type": "http", "base_url": f"http://127.0.0.1:{_closed_port()}"}}))
    code, out = _run("spec", "run", str(spec), "--seed", str(seed), "--config", str(config), "--data-dir", str(data))
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, out
    assert "cannot reach http://127.0.0.1:" in lines[0] and "target.base_url" in lines[0] and "VPR" not in out
    assert not data.exists() or not any(data.rglob("*"))


def test_the_built_spec_agent_stays_the_default(tmp_path: Path) -> None:
    from adat.cli.spec_suite_cmd import _config

    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"seed": 3}))
    assert not _config(config, None, None).spec_suite.use_target and not _config(None, None, None).spec_suite.use_target
    config.write_text(yaml.safe_dump({"target": {"type": "http", "base_url": "http://127.0.0.1:9"}}))
    assert _config(config, None, None).spec_suite.use_target
