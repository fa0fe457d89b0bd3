"""Stage task retries (tasks/stage_factory.py): an I/O-bound stage retries a transient failure
``execution.task_retries`` times, visible as retries in the Prefect API; a user error never."""

from __future__ import annotations

import uuid

import pytest
from prefect import flow

from adat.errors import TargetError, UserError
from tasks.stage_factory import bind, stage_task

FAILURES: dict[str, list[BaseException]] = {}  # per call token: what the next tries raise


def _flaky(cfg, token: str) -> str:
    if FAILURES[token]:
        raise FAILURES[token].pop(0)
    return "done"


flaky_stage = stage_task("discovery", _flaky)  # calls the target: I/O-bound


def run_flaky(cfg, failures: list[BaseException]) -> tuple[object, int, list[str]]:
    from prefect.client.orchestration import get_client

    token = uuid.uuid4().hex
    FAILURES[token] = list(failures)

    @flow
    def probe():
        return bind(flaky_stage, cfg, refresh=True).with_options(retry_delay_seconds=0)(cfg, token, return_state=True)

    state = probe(return_state=True).result(raise_on_failure=False)
    with get_client(sync_client=True) as client:
        task_run_id = state.state_details.task_run_id
        run = client.read_task_run(task_run_id)
        names = [s.name for s in client.read_task_run_states(task_run_id)]
    return state, run.run_count, names


@pytest.mark.slow
def test_a_transient_failure_is_retried_as_configured_and_shown(prefect_harness, small_run_config):
    cfg = small_run_config.model_copy(update={"execution": small_run_config.execution.model_copy(
        update={"task_retries": 2})})
    state, runs, names = run_flaky(cfg, [TargetError("connection reset"), OSError("timed out")])
    assert state.is_completed() and state.result() == "done"
    assert runs == 3 and names.count("Retrying") == 2, names

    none = cfg.model_copy(update={"execution": cfg.execution.model_copy(update={"task_retries": 0})})
    state, runs, _ = run_flaky(none, [TargetError("connection reset")])
    assert state.is_failed() and runs == 1


@pytest.mark.slow
def test_a_user_error_is_not_retried(prefect_harness, small_run_config):
    state, runs, names = run_flaky(small_run_config, [UserError("config.yaml: target.url: not a URL")])
    assert state.is_failed() and runs == 1 and "Retrying" not in names
