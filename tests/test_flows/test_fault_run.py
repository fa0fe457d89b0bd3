"""`adat run` with `target.fault` set: every execution of the run is on the faulty variant (issue 8).

The plain executions, and the transformed tests' executions made inside the transformation loop,
all record the fault's id as their agent variant (and so do their ids and side-log events).
"""

from __future__ import annotations

import pytest

from adat.cli.flow_loader import load_flow
from adat.stages.ids import execution_id
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

FAULT = "cancel_any_reason"


@pytest.mark.slow
def test_every_execution_of_a_fault_run_records_the_fault(prefect_harness, tmp_path):
    base = small_demo_config(tmp_path / "data", sessions=4, n=4, run_id="on-fault")
    cfg = base.model_copy(update={"target": base.target.model_copy(update={"fault": FAULT})})
    run_id = load_flow("pipeline")(config=cfg)
    root = cfg.data_path()
    tests = {t.test_id: t for t in read_records(root, "tests", run_id=run_id)}
    executions = read_records(root, "executions", run_id=run_id)
    kinds = {tests[e.test_id].kind for e in executions}
    assert kinds == {"plain", "transformed"}, kinds  # both phases executed something
    assert {e.agent_variant for e in executions} == {FAULT}
    assert all(e.execution_id == execution_id(run_id, e.test_id, FAULT) for e in executions)
    assert {v.execution_id for v in read_records(root, "verdicts", run_id=run_id)} == {e.execution_id for e in executions}
    assert {r.agent_variant for r in read_records(root, "rule_events", run_id=run_id)} <= {FAULT}
    assert read_records(root, "runs", run_id=run_id)[-1].agent_variant == FAULT
