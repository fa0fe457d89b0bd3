"""config.Environment / env_variable (pydantic-settings): the names and precedence adat always had."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat import config
from adat.config import LLMSettings, api_key, env_variable, environment


def test_a_named_variable_comes_from_the_environment_then_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ADAT_T_BOTH=file\nADAT_T_FILE=file-only\nADAT_T_EMPTY=\n")
    monkeypatch.setenv("ADAT_T_BOTH", "env")
    monkeypatch.delenv("ADAT_T_FILE", raising=False)
    monkeypatch.delenv("ADAT_T_NONE", raising=False)
    assert env_variable("ADAT_T_BOTH") == "env"
    assert env_variable("ADAT_T_FILE") == "file-only"
    assert env_variable("ADAT_T_EMPTY") == ""
    assert env_variable("ADAT_T_NONE") is None
    assert env_variable("adat_t_file") is None  # names are case-sensitive
    monkeypatch.setenv("ADAT_T_FILE", "")  # an empty API key in the environment falls back to .env
    assert env_variable("ADAT_T_FILE") == ""
    assert api_key(LLMSettings(api_key_env="ADAT_T_FILE")) == "file-only"


def test_fixed_variables_are_read_from_the_environment_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(f"ADAT_CACHE_DIR={tmp_path / 'from-dotenv'}\nPREFECT_API_URL=http://dotenv/api\n")
    monkeypatch.delenv("ADAT_CACHE_DIR", raising=False)
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert environment().ADAT_CACHE_DIR is None and config.user_prefect_api_url() is None
    monkeypatch.setenv("ADAT_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.cache_dir(config.RunConfig()) == (tmp_path / "c").resolve()
    assert config.code_digest_store() == tmp_path / "xdg" / "adat" / "code_digests.json"


def test_adat_home_follows_the_variable_then_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADAT_HOME", str(tmp_path))
    assert config.adat_home() == tmp_path.resolve()
    monkeypatch.setenv("ADAT_HOME", "")
    assert (config.adat_home() / "catalogs" / "prompts").is_dir()
