"""sql/checks run inside the flows after each stage's write (dbt's ``build``): a violation fails
the stage that wrote it, naming the check and showing its first rows."""

from __future__ import annotations

import pytest
from prefect import flow

from adat.config import RunConfig
from adat.engine.context import RunContext
from adat.engine.stage_runner import Outcome
from adat.engine.table_checks import CheckFailed
from adat.stages import execution
from tests.test_sql import warehouse_fixture as fx


def _double_verdict(ctx: RunContext, **_params: object) -> Outcome:
    """An execution step with a judging bug: two verdicts for one execution in one write."""
    ctx.write("tests", [fx.test_case(ctx.run_id, "p1", "direct")], owner="suite")
    ctx.write("executions", [fx.execution(ctx.run_id, "e-p1", "p1")], owner="execution.plain.original")
    ctx.write("verdicts", [fx.verdict(ctx.run_id, "e-p1", "p1", "pass"), fx.verdict(ctx.run_id, "e-p1", "p1", "fail")],
              owner="execution.plain.original")
    return Outcome()


def _clean(ctx: RunContext, **_params: object) -> Outcome:
    ctx.write("tests", [fx.test_case(ctx.run_id, "p1", "direct")], owner="suite")
    ctx.write("executions", [fx.execution(ctx.run_id, "e-p1", "p1")], owner="execution.plain.original")
    ctx.write("verdicts", [fx.verdict(ctx.run_id, "e-p1", "p1", "pass")], owner="execution.plain.original")
    return Outcome()


@pytest.mark.slow
def test_a_check_violation_fails_the_stage_that_wrote_it(prefect_harness, tmp_path, monkeypatch):
    from tasks import stage_tasks as t
    from tasks.stage_factory import bind

    cfg = RunConfig(data_dir=str(tmp_path / "data"))

    @flow
    def one_stage(run_id: str):
        return bind(t.execute, cfg, refresh=True)(cfg, run_id, None, kind="plain")

    monkeypatch.setattr(execution, "execution_step", _clean)
    assert one_stage("ok").tables == {"tests": 1, "executions": 1, "verdicts": 1}

    monkeypatch.setattr(execution, "execution_step", _double_verdict)
    state = one_stage("bad", return_state=True)
    assert state.is_failed()
    with pytest.raises(CheckFailed) as failed:
        state.result()
    error = failed.value
    assert error.stage == "execution" and error.check == "duplicate_verdicts"
    summary, *rows = str(error).splitlines()
    assert summary == "execution: sql/checks/duplicate_verdicts found 1 violating row(s) in run bad"
    assert len(rows) == 1 and "'execution_id': 'e-p1'" in rows[0] and "'verdicts': 2" in rows[0]
