"""Scale-out: the pipeline's executions and judging as Prefect tasks mapped over the tests, on
prefect-dask's DaskTaskRunner with a local cluster, give the same tests and verdicts as threads."""

from __future__ import annotations

import pytest

from adat.cli.flow_loader import load_flow
from adat.records import Execution, TestCase, Verdict
from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config

pytestmark = pytest.mark.slow


def _verdicts(cfg, run_id: str) -> tuple[dict[str, str], dict[str, str]]:
    root = cfg.data_path()
    tests = {t.test_id: t.kind for t in read_records(root, "tests", run_id=run_id) if isinstance(t, TestCase)}
    executed = {e.execution_id: e.test_id for e in read_records(root, "executions", run_id=run_id)
                if isinstance(e, Execution)}
    verdicts = {executed[v.execution_id]: v.verdict for v in read_records(root, "verdicts", run_id=run_id)
                if isinstance(v, Verdict)}
    return tests, verdicts


def test_dask_local_cluster_matches_the_thread_runner(prefect_harness, tmp_path):
    pytest.importorskip("prefect_dask", reason="prefect-dask is an optional extra: pip install -e '.[dask]'")
    pipeline = load_flow("pipeline")
    runs = {}
    for runner in ("threads", "dask"):
        cfg = small_demo_config(tmp_path / runner, sessions=6, n=6, run_id="scale")
        cfg = cfg.model_copy(update={"execution": cfg.execution.model_copy(update={
            "task_runner": runner, "workers": 2, "dask_workers": 1, "dask_processes": False})})
        runs[runner] = _verdicts(cfg, pipeline(config=cfg))
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        names = [r.name for r in client.read_task_runs(limit=200)]
    mapped = [n for n in names if n.startswith("execution-original-")]
    plain = [t for t, kind in runs["dask"][0].items() if kind == "plain"]
    assert len(mapped) == len(plain), "the Dask run maps one execution task per plain test"
    tests, verdicts = runs["threads"]
    assert any(kind == "plain" for kind in tests.values()) and verdicts
    assert runs["dask"] == (tests, verdicts)


def test_a_dask_address_means_that_scheduler_not_a_local_cluster(tmp_path):
    pytest.importorskip("prefect_dask", reason="prefect-dask is an optional extra: pip install -e '.[dask]'")
    from flows.execute import task_runner

    cfg = small_demo_config(tmp_path, sessions=1, n=1)
    remote = cfg.model_copy(update={"execution": cfg.execution.model_copy(update={
        "task_runner": "dask", "dask_address": "tcp://127.0.0.1:8786"})})
    runner = task_runner(remote)  # made, not started: nothing connects until a flow enters it
    assert runner.address == "tcp://127.0.0.1:8786"
    local = task_runner(cfg.model_copy(update={"execution": cfg.execution.model_copy(update={"task_runner": "dask"})}))
    assert local.address is None
