"""`run-suite` reads another run's suite and writes only its own run (issue 8, Done-when 3).

A missing suite, or a run id that is the suite's own or another flow's run, is one line and exit
2 with no file changed. With an existing suite the suite run's files stay byte-identical, and a
run against a faulty variant records the fault id on every execution and in the summary.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from adat.cli.flow_loader import load_flow
from adat.config import RunConfig
from adat.run_figures import print_run_summary
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

SUITE = "suite-1"
FAULT = "cancel_any_reason"


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", *args],
                          capture_output=True, text=True, timeout=120)


def _config(tmp_path: Path, cfg: RunConfig, **update: object) -> Path:
    data = cfg.model_dump(mode="json")
    data.update(update)
    path = tmp_path / f"run-{len(list(tmp_path.glob('run-*.yaml')))}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def suite(prefect_harness, tmp_path_factory):
    cfg = small_demo_config(tmp_path_factory.mktemp("suite") / "data", sessions=4, n=4, run_id=SUITE)
    load_flow("pipeline")(config=cfg)
    return cfg


@pytest.mark.slow
@pytest.mark.parametrize("run_id", [None, "fresh-run"])
def test_a_missing_suite_is_one_line_exit_2_and_changes_no_file(suite, tmp_path, run_id):
    root = suite.data_path()
    before = _files(root)
    config = _config(tmp_path, suite, run_id=run_id)
    result = _cli("run-suite", "--config", str(config), "--suite", "no-such-run")
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert "--suite" in result.stderr
    assert _files(root) == before


@pytest.mark.slow
def test_an_existing_run_id_of_another_flow_is_refused(suite, tmp_path):
    root = suite.data_path()
    before = _files(root)
    config = _config(tmp_path, suite, run_id=SUITE)
    result = _cli("run-suite", "--config", str(config), "--suite", SUITE)
    assert result.returncode == 2 and "suite's own run" in result.stderr
    other = small_demo_config(root, sessions=1, n=1, run_id="other-run")
    from adat.engine.context import RunContext

    RunContext(other, "other-run").record_run("pipeline", "completed")
    before = _files(root)
    config = _config(tmp_path, suite, run_id="other-run")
    result = _cli("run-suite", "--config", str(config), "--suite", SUITE)
    assert result.returncode == 2 and "already exists (built by pipeline)" in result.stderr
    assert _files(root) == before


@pytest.mark.slow
def test_run_suite_leaves_the_suite_untouched_and_records_the_variant(suite):
    root = suite.data_path()
    suite_files = {k: v for k, v in _files(root / "runs").items() if f"run_id={SUITE}/" in k}
    assert suite_files
    faulty = suite.model_copy(update={"run_id": "on-fault",
                                      "target": suite.target.model_copy(update={"fault": FAULT})})
    run_id = load_flow("run_suite")(config=faulty, suite_run_id=SUITE)
    assert run_id == "on-fault"
    assert {k: v for k, v in _files(root / "runs").items() if f"run_id={SUITE}/" in k} == suite_files
    executions = read_records(root, "executions", run_id=run_id)
    suite_tests = {t.test_id for t in read_records(root, "tests", run_id=SUITE)}
    assert {e.test_id for e in executions} == suite_tests
    assert {e.agent_variant for e in executions} == {FAULT}
    assert read_records(root, "runs", run_id=run_id)[-1].agent_variant == FAULT
    out = io.StringIO()
    summary = print_run_summary(Console(file=out, width=200), faulty, run_id)
    assert summary["agent_variant"] == FAULT and FAULT in out.getvalue()
    assert all(label.endswith(f"on {FAULT}") for label in summary["verdicts"])


@pytest.mark.slow
def test_an_unchanged_rerun_starts_no_flow_and_a_changed_one_runs(suite, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import adat.cli.main as cli

    root = suite.data_path()
    runner = CliRunner()
    config = _config(tmp_path, suite, run_id="again")
    first = runner.invoke(cli.app, ["run-suite", "--config", str(config), "--suite", SUITE])
    assert first.exit_code == 0, first.output
    assert "unchanged" not in first.output
    files = _files(root / "runs")
    started: list[object] = []
    monkeypatch.setattr(cli, "_run_flow", lambda *args, **kwargs: started.append(args))
    second = runner.invoke(cli.app, ["run-suite", "--config", str(config), "--suite", SUITE])
    assert second.exit_code == 0, second.output
    assert "run again: unchanged" in second.output and started == []
    assert _files(root / "runs") == files  # nothing written
    table = first.output[first.output.index("adat run again"):]
    assert second.output.endswith(table)  # the stored run's summary, as the first run printed it
    # The answer loads no Parquet reader, no DuckDB, no Prefect and no SDK (its whole cost is the key).
    quiet = subprocess.run([sys.executable, "-X", "importtime", "-c", "from adat.cli.main import app; app()",
                            "run-suite", "--config", str(config), "--suite", SUITE],
                           capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 0 and "run again: unchanged" in quiet.stdout, quiet.stdout + quiet.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in quiet.stderr.splitlines() if line.startswith("import time")}
    assert not loaded & {"pyarrow", "duckdb", "pandas", "prefect", "openai"}, loaded & {"pyarrow", "duckdb", "prefect"}
    # A part added to the run since (the summary's inputs changed): still no flow, the summary from SQL.
    from adat.warehouse.layout import live_parts

    verdicts = live_parts(root / "runs" / "verdicts" / "run_id=again")
    shutil.copyfile(verdicts[-1], verdicts[-1].with_name(verdicts[-1].name.replace("part-", "part-9", 1)))
    third = runner.invoke(cli.app, ["run-suite", "--config", str(config), "--suite", SUITE])
    assert third.exit_code == 0 and "run again: unchanged" in third.output and started == []
    assert third.output.endswith(table)  # the copy's rows are the same verdicts: staging keeps one of each
    monkeypatch.undo()
    faulty = _config(tmp_path, suite, run_id="again", target={**suite.target.model_dump(mode="json"), "fault": FAULT})
    fourth = runner.invoke(cli.app, ["run-suite", "--config", str(faulty), "--suite", SUITE])
    assert fourth.exit_code == 0, fourth.output
    assert "unchanged" not in fourth.output  # another target: the flow runs
    assert FAULT in {e.agent_variant for e in read_records(root, "executions", run_id="again")}


def test_the_rerun_key_names_what_changes_a_result_and_not_a_performance_knob(tmp_path):
    from adat.engine.unchanged import run_suite_key

    cfg = small_demo_config(tmp_path / "data", sessions=1, n=1, run_id="k-run")
    key = run_suite_key(cfg, SUITE)
    assert key is not None and key == run_suite_key(cfg, SUITE)
    faster = cfg.model_copy(update={"execution": cfg.execution.model_copy(update={"workers": 7})})
    assert run_suite_key(faster, SUITE) == key
    other = cfg.model_copy(update={"target": cfg.target.model_copy(update={"fault": FAULT})})
    assert run_suite_key(other, SUITE) != key
    assert run_suite_key(cfg, "another-suite") != key
    assert run_suite_key(cfg.model_copy(update={"run_id": None}), SUITE) is None
