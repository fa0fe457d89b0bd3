"""benchmarks/silent_faults.py's plumbing, fast: its arguments, the one-line exit without the
``judge.use_tool_trace`` switch, the configs it writes and the side-by-side table and targets."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel, ConfigDict

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "silent_faults.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("silent_faults_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class _Judge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    use_tool_trace: bool = True


class _WithSwitch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    judge: _Judge = _Judge()


class _WithoutSwitch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int = 0


def test_arguments(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.parse_args([]).settings == ["false", "true"]
    assert bench.parse_args(["--settings", "true"]).settings == ["true"]
    assert bench.parse_args(["--settings", "TRUE, false"]).settings == ["true", "false"]
    assert bench.parse_args(["--as-configured"]).settings == ["configured"]
    for bad in ("maybe", "true,true", ""):
        with pytest.raises(SystemExit) as exc:
            bench.parse_args(["--settings", bad])
        assert exc.value.code == 2
        assert "--settings" in capsys.readouterr().err


def test_a_config_without_the_switch_is_one_line_and_exit_2(bench: ModuleType,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.require_switch(_WithoutSwitch)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "judge.use_tool_trace" in err and "--as-configured" in err
    bench.require_switch(_WithSwitch)  # accepted: nothing raised


def test_the_config_of_each_setting(bench: ModuleType, tmp_path: Path) -> None:
    text_only = bench.config_for("false", tmp_path)
    assert text_only["judge"] == {"use_tool_trace": False} and text_only["data_dir"] == str(tmp_path)
    assert "run_id" not in text_only  # each setting's run gets its own id
    assert bench.config_for("true", tmp_path)["judge"] == {"use_tool_trace": True}
    assert "judge" not in bench.config_for("configured", tmp_path)
    assert {k: v for k, v in text_only.items() if k != "judge"} == bench.config_for("configured", tmp_path)


def test_the_table_and_its_targets(bench: ModuleType) -> None:
    silent, shipped = [f"s{i}" for i in range(6)], ["a", "b"]
    columns = {"text-only": {"s0": "detected 1/2", "s1": "missed 0/3", "s5": "not reached 0/0",
                             "a": "detected 2/2", "b": "detected 1/1"},
               "trace-aware": {**dict.fromkeys(silent[:5], "detected 1/1"), "s5": "not reached 0/0",
                               "a": "detected 2/2", "b": "missed 0/1"}}
    lines = bench.report(columns, silent, shipped)
    assert any(line.split() == ["s5", "not", "reached", "0/0", "not", "reached", "0/0"] for line in lines)
    assert any("silent, detected" in line and "1 / 6" in line and "5 / 6" in line for line in lines)
    assert any(line.lstrip().startswith("ok") and "≥ 5 of 6" in line for line in lines)
    assert any(line.lstrip().startswith("MISS") and "2 -> 1 of 2" in line for line in lines)  # a drop
    columns["trace-aware"]["b"] = "detected 1/1"
    columns["trace-aware"]["s4"] = "missed 0/1"
    lines = bench.report(columns, silent, shipped)
    assert [line.split()[0] for line in lines if "detects" in line or "drop" in line] == ["MISS", "ok"]
    assert all(not line.lstrip().startswith(("ok", "MISS"))
               for line in bench.report({"as configured": {}}, silent, shipped))


def test_main_runs_the_same_suite_under_each_setting_on_both_packs(bench: ModuleType, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # the command sequence, with the CLI calls recorded instead of run (the flows take minutes)
    import yaml

    calls: list[tuple[tuple[str, ...], Path | None, object]] = []

    def adat(*args: str, fault_dir: Path | None = None) -> None:
        config = yaml.safe_load(Path(args[args.index("-c") + 1]).read_text()) if "-c" in args else None
        calls.append((args, fault_dir, config and config.get("judge")))

    monkeypatch.setenv("ADAT_CACHE_DIR", str(tmp_path / "cache"))  # main sets it when unset: keep it scoped
    monkeypatch.setattr(bench, "require_switch", lambda model=None: None)
    monkeypatch.setattr(bench, "_adat", adat)
    monkeypatch.setattr(bench, "_has_run", lambda data, run_id: run_id == "demo")
    monkeypatch.setattr(bench, "detection", lambda data, run_id: {"write_before_yes": "detected 1/1"}
                        if "trace" in run_id else {})
    assert bench.main(["--keep", str(tmp_path / "data")]) == 1  # 1 of 7 detected trace-aware: a miss
    steps = [(args[0], args[args.index("--run-id" if args[0] == "run-suite" else "--run") + 1], fault_dir, judge)
             for args, fault_dir, judge in calls]
    assert steps == [
        ("run-suite", "silent-text-only", None, {"use_tool_trace": False}),
        ("evaluate", "silent-text-only", bench.SILENT_PACK, {"use_tool_trace": False}),
        ("regress", "silent-text-only", bench.SHIPPED_PACK, {"use_tool_trace": False}),
        ("run-suite", "silent-trace-aware", None, {"use_tool_trace": True}),
        ("evaluate", "silent-trace-aware", bench.SILENT_PACK, {"use_tool_trace": True}),
        ("regress", "silent-trace-aware", bench.SHIPPED_PACK, {"use_tool_trace": True}),
    ]
    assert all(args[args.index("--suite") + 1] == "demo" for args, _, _ in calls if args[0] == "run-suite")
    out = capsys.readouterr().out
    assert "text-only" in out and "trace-aware" in out and "MISS trace-aware detects" in out
