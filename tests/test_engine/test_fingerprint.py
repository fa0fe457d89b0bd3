"""Stage cache keys: performance knobs and comments do not count; inputs, prompts and artifacts do."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from adat.config import RunConfig
from adat.engine import fingerprint
from adat.engine.stage_registry import STAGES, downstream, refreshes


def test_performance_knobs_are_not_part_of_the_key(tmp_path: Path) -> None:
    cfg = RunConfig(data_dir=str(tmp_path))
    knobs = cfg.model_copy(update={"data_dir": str(tmp_path / "elsewhere"),
                                   "llm": cfg.llm.model_copy(update={"concurrency": 9, "timeout_s": 5.0}),
                                   "execution": cfg.execution.model_copy(update={"workers": 9})})
    for name in STAGES:
        assert fingerprint.stage_key(name, {"cfg": cfg, "run_id": "r"}) == \
            fingerprint.stage_key(name, {"cfg": knobs, "run_id": "r"}), name
    changed = cfg.model_copy(update={"generation": cfg.generation.model_copy(update={"n": 7})})
    assert fingerprint.stage_key("plain-generation", {"cfg": changed, "run_id": "r"}) != \
        fingerprint.stage_key("plain-generation", {"cfg": cfg, "run_id": "r"})
    assert fingerprint.stage_key("discovery", {"cfg": cfg, "run_id": "r2"}) != \
        fingerprint.stage_key("discovery", {"cfg": cfg, "run_id": "r"})


def test_comments_and_docstrings_do_not_change_the_parsed_code() -> None:
    a = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    b = '# header\ndef f(x):\n    """Another doc."""\n\n    return x + 1\n'
    c = 'def f(x):\n    return x + 2\n'

    def parsed(src: str) -> str:
        return ast.dump(fingerprint._strip_docstrings(ast.parse(src)))

    assert parsed(a) == parsed(b) != parsed(c)


def test_each_stage_has_its_own_stable_code_digest() -> None:
    grounding = fingerprint.code_digest(STAGES["grounding"].entry)
    assert grounding == fingerprint.code_digest(STAGES["grounding"].entry)
    assert len({fingerprint.code_digest(s.entry) for s in STAGES.values()}) == len(STAGES)


def test_a_step_s_digest_covers_the_functions_of_its_module_it_calls_and_no_other(tmp_path: Path,
                                                                                 monkeypatch) -> None:
    """A step sits beside the stage functions it calls: editing one of those (or a constant they
    read) changes the step's key; editing another step of the module does not."""
    package = tmp_path / "adat"
    (package / "stages").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "stages" / "__init__.py").write_text("")
    (package / "extra.py").write_text("def helper():\n    return 1\n")
    module = package / "stages" / "demo.py"
    source = (
        "LIMIT = 3\n\n"
        "def one_step(ctx):\n    return _work(ctx)\n\n"
        "def _work(ctx):\n    from adat.extra import helper\n    return helper() + LIMIT\n\n"
        "def other_step(ctx):\n    return 2\n"
    )
    monkeypatch.setattr(fingerprint, "_PACKAGE", package)

    def digest(text: str) -> str:
        module.write_text(text)
        fingerprint._parsed.cache_clear()
        return fingerprint._code_digest("adat.stages.demo:one_step")

    first = digest(source)
    assert digest(source.replace("def other_step(ctx):\n    return 2", "def other_step(ctx):\n    return 5")) == first
    assert digest(source.replace("helper() + LIMIT", "helper() - LIMIT")) != first  # the helper it calls
    assert digest(source.replace("LIMIT = 3", "LIMIT = 4")) != first  # a constant the helper reads
    (package / "extra.py").write_text("def helper():\n    return 2\n")  # a module the helper imports
    assert digest(source) != first


def test_refresh_reruns_a_stage_and_its_downstream_only() -> None:
    after_grounding = downstream(["grounding"])
    assert {"grounding", "plain-generation", "execution", "selection-priors", "transformation",
            "audit", "regression"} <= after_grounding
    assert "discovery" not in after_grounding and "extraction" not in after_grounding
    assert refreshes(["transformation"], "transformation") and not refreshes(["transformation"], "execution")
    assert refreshes(True, "discovery") and not refreshes(False, "discovery") and not refreshes(None, "audit")


def test_adat_run_refresh_with_an_unknown_stage_is_a_user_error(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(f"data_dir: {tmp_path / 'data'}\n")
    proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "run", "--config",
                           str(config), "--refresh", "nope"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--refresh" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "data").exists()
