"""One small nightly-shaped warehouse for the reporting tests, built once per session.

Under a real (ephemeral) Prefect API, reference agent, offline/heuristic provider:

* ``rep-prev`` — an earlier pipeline run (fewer discovery sessions, so its statements differ);
* ``rep-cur`` — the run reported on: pipeline, then evaluate on :data:`FAULTS`;
* ``rep-same`` / ``rep-fault`` — ``adat run-suite`` of rep-cur's suite on the original agent and
  on the fault :data:`SUITE_FAULT`, through the CLI with ``--fail-on regression`` (exit codes kept).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adat.cli.flow_loader import load_flow
from adat.cli.main import app
from adat.config import RunConfig
from tests.support.demo_config import small_demo_config, write_config

FAULTS = ["no_write_confirmation", "cancel_any_reason"]
SUITE_FAULT = "no_write_confirmation"


@dataclass
class Nightly:
    cfg: RunConfig
    root: Path
    same_exit: int
    same_output: str
    fault_exit: int
    fault_output: str


@pytest.fixture(scope="session")
def nightly(prefect_harness, tmp_path_factory: pytest.TempPathFactory) -> Nightly:
    base = tmp_path_factory.mktemp("nightly")
    data = base / "data"
    load_flow("pipeline")(config=small_demo_config(data, sessions=6, n=6, run_id="rep-prev"))
    cfg = small_demo_config(data, sessions=8, n=8, run_id="rep-cur")
    cfg = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"faults": FAULTS})})
    load_flow("pipeline")(config=cfg)
    load_flow("evaluate")(config=cfg, suite_run_id="rep-cur")
    runner = CliRunner()
    results = {}
    for run_id, fault in (("rep-same", None), ("rep-fault", SUITE_FAULT)):
        suite_cfg = cfg.model_copy(update={"run_id": run_id, "target": cfg.target.model_copy(update={"fault": fault})})
        config = write_config(suite_cfg, base / f"{run_id}.yaml")
        results[run_id] = runner.invoke(app, ["run-suite", "--config", str(config), "--suite", "rep-cur",
                                              "--fail-on", "regression"])
    return Nightly(cfg=cfg, root=cfg.data_path(), same_exit=results["rep-same"].exit_code,
                   same_output=results["rep-same"].output, fault_exit=results["rep-fault"].exit_code,
                   fault_output=results["rep-fault"].output)
