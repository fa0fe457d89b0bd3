"""Provider plugins: the ``adat.providers`` entry points the registry loads (the offline stand-in
is one), and the one-line errors of a missing or misnamed plugin."""

from __future__ import annotations

import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from adat.config import RoleModels, RunConfig
from adat.errors import UserError
from adat.llm import LLMClient, ProviderRegistry
from adat.llm.providers import provider_registry as registry_module
from tests.test_llm.conftest import Answer
from tests.test_llm.stub_offline import StubOffline

ROOT = Path(__file__).resolve().parents[2]
VARS = {"question": "q", "reply": "four"}
STUB = "tests.test_llm.stub_offline:StubOffline"


def installed(monkeypatch: pytest.MonkeyPatch, **points: str) -> None:
    """Pretend the installed ``adat.providers`` entry points are ``points`` (name -> object)."""
    eps = {name: EntryPoint(name=name, value=value, group=registry_module.PLUGIN_GROUP)
           for name, value in points.items()}
    monkeypatch.setattr(registry_module, "plugins", lambda: eps)


def test_pyproject_registers_the_stand_in_and_the_install_knows_it() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["adat.providers"]
    assert declared == {"offline": "adat_offline.provider:OfflineHeuristicProvider"}
    # The environment's metadata (pip install -e . writes it) must say the same.
    assert {n: ep.value for n, ep in registry_module.plugins().items() if n in declared} == declared
    name, model, provider = ProviderRegistry().create("offline/heuristic", RunConfig())
    assert (name, model) == ("offline", "heuristic")
    assert type(provider).__module__ == "adat_offline.provider"
    assert not provider.cacheable  # type: ignore[attr-defined]
    cfg = RunConfig(models=RoleModels(judge="offline/heuristic"))
    assert "adat_offline.provider" in registry_module.provider_modules(cfg)


def test_plugin_is_loaded_lazily_and_not_cached(tmp_path: Path, prompts_dir: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, offline=STUB)
    cfg = RunConfig(models=RoleModels(judge="offline/heuristic"))
    client = LLMClient(cfg, "r", prompts_dir=prompts_dir, cache_dir=tmp_path / "cache")
    before = StubOffline.instances
    assert client.structured("judge", "answer", VARS, Answer) == Answer(answer=4, note="offline")
    assert client.structured("judge", "answer", VARS, Answer).answer == 4
    assert StubOffline.instances == before + 1 and client.provider_calls == 2
    assert not (tmp_path / "cache" / "llm").exists()
    assert [r.model for r in client.drain_calls()] == ["heuristic", "heuristic"]


def test_any_plugin_name_is_a_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, offline=STUB, mine=STUB)
    assert "mine" in ProviderRegistry().known()
    assert ProviderRegistry().create("mine/heuristic", RunConfig())[:2] == ("mine", "heuristic")


@pytest.mark.parametrize("points", [{}, {"offline": "adat.no_such_offline.provider:X"}],
                         ids=["no-entry-point", "module-missing"])
def test_missing_offline_plugin_is_one_line_user_error(monkeypatch: pytest.MonkeyPatch,
                                                       points: dict[str, str]) -> None:
    installed(monkeypatch, **points)
    assert "offline" in ProviderRegistry().known()  # a shipped plugin is known even when it is missing
    with pytest.raises(UserError, match="offline provider not available") as err:
        ProviderRegistry().create("offline/heuristic", RunConfig())
    assert err.value.field == "models" and "\n" not in str(err.value)


def test_unknown_model_of_a_plugin_is_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, offline=STUB)
    with pytest.raises(UserError, match="unknown offline model 'gpt'") as err:
        ProviderRegistry().create("offline/gpt", RunConfig())
    assert "offline/heuristic" in (err.value.fix or "")


def test_unknown_provider_is_still_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, offline=STUB)
    with pytest.raises(UserError, match="unknown provider 'nope'"):
        ProviderRegistry().create("nope/x", RunConfig())
