"""``adat config show-defaults`` lists every setting with its description, and every setting is one
that something sets: a shipped config, a test or a benchmark (issue 26: config for users, knobs
for research — a setting nothing sets belongs in the code that uses it, as a constant)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel
from pydantic_settings import BaseSettings

from adat import config as config_module
from adat.config import SELECTOR_NAMES, RunConfig, parse_selector, selector_settings_model, with_selector
from adat.config_defaults import commented_defaults

REPO = Path(__file__).resolve().parents[1]
#: where a setting counts as set: shipped configs and catalogs, tests and benchmarks
SETTERS = ("data", "catalogs", "tests", "benchmarks")
#: the run config's sections (config.Environment, the variables adat reads, is not a setting)
MODELS = [m for _, m in inspect.getmembers(config_module, inspect.isclass)
          if issubclass(m, BaseModel) and not issubclass(m, BaseSettings) and m.__module__ == "adat.config"]


def test_every_setting_of_every_section_and_kind_has_a_description() -> None:
    missing = [f"{m.__name__}.{name}" for m in MODELS for name, info in m.model_fields.items() if not info.description]
    assert not missing, missing


def test_show_defaults_prints_every_setting_under_its_description_and_loads_to_the_defaults() -> None:
    text = commented_defaults()
    assert RunConfig.model_validate(yaml.safe_load(text)) == RunConfig()
    lines = text.splitlines()
    for model in MODELS:
        for name, info in model.model_fields.items():
            assert info.description
            key = re.compile(rf"^\s*(# )?{re.escape(name)}:")
            at = [i for i, line in enumerate(lines) if key.match(line)]
            assert at, f"{model.__name__}.{name} is not shown"
            described = " ".join(line.strip().lstrip("# ") for line in lines[max(0, at[0] - 6):at[0]])
            first_words = " ".join(info.description.split()[:4])
            assert any(first_words in " ".join(lines[j].strip().lstrip("# ") for j in range(max(0, i - 6), i))
                       for i in at), f"{model.__name__}.{name}: description not above it ({described!r})"


def _setter_text() -> str:
    texts = [p.read_text(errors="ignore") for base in SETTERS for p in (REPO / base).rglob("*")
             if p.is_file() and p.suffix in (".py", ".yaml", ".yml")]
    return "\n".join(texts)


def test_no_setting_is_unset_by_every_config_test_and_benchmark() -> None:
    """A key, keyword argument or dict key of that name somewhere in a config, test or benchmark."""
    text = _setter_text()
    unset = []
    for model in MODELS:
        for name in model.model_fields:
            pattern = rf"(\b{name}\s*:|[\"']{name}[\"']\s*:|\b{name}\s*=(?!=))"
            if not re.search(pattern, text):
                unset.append(f"{model.__name__}.{name}")
    assert not unset, f"settings nothing sets (make them constants where they are used): {unset}"


@pytest.mark.parametrize("name", SELECTOR_NAMES)
def test_each_selector_has_its_own_settings(name: str) -> None:
    settings = parse_selector({"name": name})
    assert isinstance(settings, selector_settings_model(name)) and settings.name == name
    kinds = {selector_settings_model(n) for n in SELECTOR_NAMES}
    assert len(kinds) >= 3  # per selector, not one bag of every selector's knobs
    if not name.startswith("pooled"):
        with pytest.raises(ValueError, match="kappa"):
            parse_selector({"name": name, "kappa": 0.2})  # pooled's setting is not another selector's


def test_a_selector_section_without_name_is_the_default_and_the_ablation_keeps_the_walk() -> None:
    cfg = RunConfig.model_validate({"selector": {"max_attempts_cap": 12}})
    assert cfg.selector.name == "pooled" and cfg.selector.max_attempts_cap == 12
    adat2 = with_selector(cfg.selector, "adat2")
    assert adat2.name == "adat2" and adat2.max_attempts_cap == 12 and adat2.gamma == 0.5
    tuned = RunConfig.model_validate({"selector": {"name": "pooled", "kappa": 0.25, "block_size": 7}}).selector
    assert with_selector(tuned, "pooled-cold-start").kappa == 0.25  # same kind: every setting kept


def test_a_selectors_kind_cannot_be_assigned_in_place() -> None:
    """Setting ``name`` on pooled's settings would leave pooled's settings under adat2's name."""
    cfg = RunConfig()
    with pytest.raises(ValueError, match="frozen"):
        cfg.selector.name = "adat2"  # type: ignore[misc]


def test_every_count_has_a_documented_upper_bound() -> None:
    """Issue 30: an int setting (a count: sessions, n, turn limits, repeat, workers …) has an upper
    bound, and its description, which show-defaults prints, states it (``1–200``, ``≤ 10,000``)."""
    import annotated_types

    undocumented = []
    for model in MODELS:
        for name, info in model.model_fields.items():
            # budgets limit spending (no bound makes sense) and a seed is not a count
            if info.annotation not in (int, int | None) or name == "seed" or issubclass(model, config_module.Budget):
                continue
            bounds = [m.le for m in info.metadata if isinstance(m, annotated_types.Le)]
            if not bounds:
                undocumented.append(f"{model.__name__}.{name}: no upper bound")
            elif f"{bounds[0]:,}" not in (info.description or "") and f"{bounds[0]}" not in (info.description or ""):
                undocumented.append(f"{model.__name__}.{name}: ≤ {bounds[0]} not in its description")
    assert not undocumented, undocumented


@pytest.mark.parametrize(("section", "key", "value"), [
    ("discovery", "sessions", 10**12), ("discovery", "turn_limit", 10**5), ("generation", "n", 10**7),
    ("execution", "workers", 10**5), ("execution", "repeat", 10**6), ("llm", "timeout_s", -5),
    ("llm", "concurrency", 10**6)])
def test_out_of_bound_settings_are_refused(section: str, key: str, value: object) -> None:
    with pytest.raises(ValueError, match=key):
        RunConfig.model_validate({section: {key: value}})
