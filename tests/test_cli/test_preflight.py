"""Bad input is one line and exit code 2 before any flow starts (issue #8, preflight).

Each case runs the real CLI in a subprocess and checks that nothing was written: no run row, no
warehouse directory created, no file produced by a query.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from adat.config import ROLES, RunConfig, adat_home
from adat.engine.preflight import check_prompts, preflight
from adat.errors import UserError
from tests.support.chat_server import ChatServer

ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]
KEY_ENV = "ADAT_PREFLIGHT_TEST_KEY"


def adat(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, KEY_ENV: "sk-local-test", **(env or {})}
    return subprocess.run([*ADAT, *args], capture_output=True, text=True, timeout=120, env=full_env, cwd=cwd)


def one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def openai_config(tmp_path: Path, base_url: str, **extra: object) -> Path:
    """A run config whose every role is ``openai/scripted-model`` at ``base_url``."""
    data = {"data_dir": str(tmp_path / "data"), "models": dict.fromkeys(ROLES, "openai/scripted-model"),
            "llm": {"base_url": base_url, "api_key_env": KEY_ENV}, **extra}
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def closed_port() -> int:
    with socket.socket() as sock:  # bound then closed: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    try:
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


def test_unreachable_llm_endpoint_is_one_line_before_any_flow(tmp_path: Path) -> None:
    path = openai_config(tmp_path, f"http://127.0.0.1:{closed_port()}/v1")
    one_line_error(adat("run", "--config", str(path)), "llm.base_url", "cannot reach")
    assert not (tmp_path / "data").exists()  # no flow started, so no run was recorded as running


def test_llm_endpoint_that_never_answers_is_one_line_before_any_flow(tmp_path: Path, silent_port: int) -> None:
    path = openai_config(tmp_path, f"http://127.0.0.1:{silent_port}/v1")
    one_line_error(adat("run", "--config", str(path)), "llm.base_url", "did not answer")
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("endpoint", ["closed", "silent"])
def test_preflight_of_a_dead_endpoint_answers_within_10_s(monkeypatch: pytest.MonkeyPatch, silent_port: int,
                                                          endpoint: str) -> None:
    # Timed in-process: the bound is preflight's own (PREFLIGHT_TIMEOUT_S per request, no retries),
    # not the interpreter's start-up on a loaded machine.
    monkeypatch.setenv(KEY_ENV, "sk-local-test")
    port = closed_port() if endpoint == "closed" else silent_port
    cfg = RunConfig.model_validate({"models": dict.fromkeys(ROLES, "openai/scripted-model"),
                                    "llm": {"base_url": f"http://127.0.0.1:{port}/v1", "api_key_env": KEY_ENV}})
    start = time.monotonic()
    with pytest.raises(UserError, match="llm.base_url"):
        preflight(cfg)
    assert time.monotonic() - start < 10


def test_preflight_passes_on_a_live_endpoint_without_a_chat_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-local-test")
    with ChatServer() as server:
        cfg = RunConfig.model_validate({"models": dict.fromkeys(ROLES, "openai/scripted-model"),
                                        "llm": {"base_url": server.base_url, "api_key_env": KEY_ENV,
                                                "output_mode": "json_schema"}})
        checked = preflight(cfg)
        assert f"llm endpoint: {server.base_url}" in checked
        # the models list answered and the output mode is configured: no completion was asked for
        assert server.requests == [] and server.probes == []


def test_endpoint_without_models_route_gets_one_token_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-local-test")
    with ChatServer() as server:
        server.serve_models = False
        server.push_content("ok")
        cfg = RunConfig.model_validate({"models": {"judge": "openai/scripted-model"},
                                        "llm": {"base_url": server.base_url, "api_key_env": KEY_ENV,
                                                "output_mode": "json_schema"}})
        preflight(cfg)
        assert len(server.requests) == 1
        assert server.requests[0].body["max_tokens"] == 1
        server.push_status(404, message="model not found")
        with pytest.raises(UserError, match="does not serve model 'scripted-model'"):
            preflight(cfg)
        server.push_status(401, message="bad key")
        with pytest.raises(UserError, match="refused the API key"):
            preflight(cfg)


def test_prompt_with_an_undeclared_variable_fails_before_the_flow(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for part in ("catalogs", "data/reference"):
        shutil.copytree(adat_home() / part, home / part)
    prompt = home / "catalogs" / "prompts" / "judge.yaml"
    prompt.write_text(prompt.read_text().replace("user: |", "user: |\n  {{ not_declared }}", 1))
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump({"data_dir": str(tmp_path / "data")}))
    proc = adat("run", "--config", str(config), env={"ADAT_HOME": str(home)})
    one_line_error(proc, str(prompt), "not_declared")
    assert not (tmp_path / "data").exists()


def test_every_shipped_prompt_renders_with_its_declared_variables() -> None:
    ids = check_prompts(adat_home() / "catalogs" / "prompts")
    assert {"judge", "generate_plain", "extractor"} <= set(ids)


@pytest.mark.parametrize("run_id", ["../../etc", "a/b", ".hidden", "-x", "x\n"])
def test_unsafe_run_id_is_rejected_at_config_validation(tmp_path: Path, run_id: str) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({"run_id": run_id, "data_dir": str(tmp_path / "data")}))
    one_line_error(adat("config", "check", str(path)), "run_id")
    one_line_error(adat("run", "--config", str(path)), "run_id")
    assert not (tmp_path / "data").exists()


def test_unsafe_run_ids_on_the_command_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump({"data_dir": str(data)}))
    one_line_error(adat("sql", "stg_runs", "--run", "../x", "--data-dir", str(data)), "--run")
    one_line_error(adat("evaluate", "--config", str(config), "--run", "../../etc"), "--run")
    one_line_error(adat("run-suite", "--config", str(config), "--suite", "a/../b"), "--suite")
    one_line_error(adat("compare", "../up", "--data-dir", str(data)), "RUN_IDS")
    assert sorted(p.name for p in data.iterdir()) == []


@pytest.mark.parametrize("command", [["sql", "stg_runs"], ["catalog"], ["compare", "r1"]])
def test_read_commands_need_an_existing_data_dir(tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "no-such-dir"
    one_line_error(adat(*command, "--data-dir", str(missing)), "--data-dir", str(missing))
    assert not missing.exists()


def test_evaluate_with_a_missing_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"
    config = tmp_path / "run.yaml"
    config.write_text("{}\n")
    one_line_error(adat("evaluate", "--config", str(config), "--run", "r1", "--data-dir", str(missing)),
                   "--data-dir")
    assert not missing.exists()


def test_a_dask_task_runner_without_prefect_dask_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from adat.config import ExecutionConfig

    cfg = RunConfig(execution=ExecutionConfig(task_runner="dask"))
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "prefect_dask" else real(name, *a))
    with pytest.raises(UserError, match="prefect-dask is not installed") as err:
        preflight(cfg)
    assert err.value.field == "execution.task_runner"
