"""End to end (issue 5, Done when): on the reference agent with the offline provider and a small
budget, the pipeline runs once, then both baselines and the ablation over EVERY selector reuse its
discovery; each run writes tests, attempts (selectors) and verdicts, and `adat compare` prints
the tables for all of them."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from typer.testing import CliRunner

from adat.cli.flow_loader import load_flow
from adat.config import SELECTOR_NAMES
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config, write_config

pytestmark = pytest.mark.slow

#: every selector a run config can name: a new selector is in the ablation without editing this test
SELECTORS = list(SELECTOR_NAMES)


@pytest.fixture(scope="module")
def runs(prefect_harness: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cfg = small_demo_config(tmp_path_factory.mktemp("compare") / "data", sessions=6, n=5, run_id="e2e-source")
    source = load_flow("pipeline")(config=cfg)
    # The baselines and the ablation run through the CLI commands, which load the same flows.
    config_file = write_config(cfg, cfg.data_path().parent / "run.yaml")
    out = cli(["baselines", "--config", str(config_file), "--from", source])
    baselines = {p[0]: p[2] for p in map(str.split, out.splitlines()) if p[:1] in (["agenteval"], ["direct"])}
    out = cli(["ablation", "--config", str(config_file), "--from", source, "--selectors", "all"])
    ablation = {p[0]: p[1:] for p in map(str.split, out.splitlines()) if p and p[0] in SELECTORS}
    return {"cfg": cfg, "source": source, "baselines": baselines, "ablation": ablation}


def cli(args: list[str]) -> str:
    from adat.cli.main import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return str(result.stdout)


def rows(runs: dict[str, Any], table: str, run_id: str) -> list[Any]:
    return read_records(runs["cfg"].data_path(), table, run_id=run_id)


@pytest.mark.parametrize("method", ["agenteval", "direct"])
def test_each_baseline_writes_tests_and_verdicts(runs: dict[str, Any], method: str) -> None:
    assert set(runs["baselines"]) == {"agenteval", "direct"}
    run_id = runs["baselines"][method]
    assert run_id != runs["source"]
    traces = rows(runs, "traces", run_id)
    assert len(traces) == 6 and {t.run_id for t in traces} == {run_id}  # the source's discovery, copied
    tests = rows(runs, "tests", run_id)
    assert tests and {t.kind for t in tests} == {method}
    executions = rows(runs, "executions", run_id)
    verdicts = rows(runs, "verdicts", run_id)
    assert {e.test_id for e in executions} == {t.test_id for t in tests}
    assert {v.execution_id for v in verdicts} == {e.execution_id for e in executions}
    assert rows(runs, "runs", run_id)[-1].status == "completed"


@pytest.mark.parametrize("selector", SELECTORS)
def test_each_selector_writes_attempts_tests_and_verdicts(runs: dict[str, Any], selector: str) -> None:
    assert set(runs["ablation"]) == set(SELECTORS)
    (run_id,) = runs["ablation"][selector]
    statements = {s.statement_id for s in rows(runs, "statements", runs["source"])}
    assert {s.statement_id for s in rows(runs, "statements", run_id)} == statements  # same statements
    attempts = rows(runs, "attempts", run_id)
    assert attempts and {a.selector for a in attempts} == {selector}
    # every attempt names its generator model and the target it ran on (issue 8, item 3)
    assert {a.generator for a in attempts} == {str(runs["cfg"].models.generator)}
    assert all(a.target_id.startswith("reference-retail") for a in attempts)
    assert {a.outcome for a in attempts} <= {"applicable", "not_applicable", "error"}
    transformed = [t for t in rows(runs, "tests", run_id) if t.kind == "transformed"]
    assert transformed and {a.test_id for a in attempts if a.test_id} == {t.test_id for t in transformed}
    verdicts = rows(runs, "verdicts", run_id)
    assert {v.test_id for v in verdicts} == {t.test_id for t in transformed}
    run = rows(runs, "runs", run_id)[-1]
    assert run.selector == selector and run.status == "completed"


def test_adat_compare_prints_the_tables_for_every_run(runs: dict[str, Any]) -> None:
    every = [runs["source"], *runs["baselines"].values(), *(r for ids in runs["ablation"].values() for r in ids)]
    data = str(runs["cfg"].data_path())
    text = cli(["compare", *every, "--data-dir", data])
    for title in ("RQ1 (Table 2)", "RQ2 (Table 3)", "RQ3 (Table 4)", "RQ4 (Table 5)"):
        assert title in text
    rq2 = cli(["compare", *every, "--data-dir", data, "--format", "csv", "--table", "rq2"])
    by_selector = {r["selector"]: r for r in csv.DictReader(io.StringIO(rq2))}
    assert set(by_selector) == set(SELECTORS)
    source = runs["cfg"].selector.name  # the default selector made the source run
    assert source == "pooled" and by_selector[source]["runs"] == "2"  # the source run and the ablation's run
    assert by_selector["adat2"]["runs"] == "1"
    rq3 = cli(["compare", *every, "--data-dir", data, "--format", "csv", "--table", "rq3"])
    methods = {r["method"] for r in csv.DictReader(io.StringIO(rq3))}
    assert {"AdaT2", "AgentEval", "direct"} <= methods
