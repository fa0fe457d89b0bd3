"""The nightly deployment as a user runs it: a local Prefect server, ``python -m flows.nightly``
serving the deployment, runs triggered through the API, and the UI's artifacts read back from it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adat.warehouse import read_records
from tests.support.demo_config import small_demo_config, write_config
from tests.support.prefect_server import running_prefect_server

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
DEPLOYMENT = "adat-nightly/adat-nightly"
FAULTS = ["no_write_confirmation"]
#: the fault the red night runs the blessed suite against (turns passing tests of the small demo suite to fail)
RED_FAULT = "no_write_confirmation"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    path = os.pathsep.join([str(REPO / "src"), str(REPO), env.get("PYTHONPATH", "")])
    return {**env, "PYTHONPATH": path, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1", **extra}


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("nightly")


@pytest.fixture(scope="module")
def prefect_server(workdir: Path) -> Iterator[str]:
    """A real Prefect server on 127.0.0.1, started as ``adat server start`` starts it (its home under
    the data directory); the API URL. Stopped, with its children, afterwards."""
    with running_prefect_server(workdir / "data") as server:
        yield server.api_url


@pytest.fixture(scope="module")
def client(prefect_server: str, workdir: Path) -> Iterator[Any]:
    """A Prefect client of the server, once ``python -m flows.nightly --config … --evaluate`` serves
    the deployment against it (the serving process is stopped afterwards)."""
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    cfg = small_demo_config(workdir / "data", sessions=2, n=2)
    cfg = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"faults": FAULTS})})
    config = write_config(cfg, workdir / "nightly.yaml")
    env = _env(workdir / "runner-home", PREFECT_API_URL=prefect_server, PREFECT_RUNNER_POLL_FREQUENCY="2",
               PREFECT_SERVER_EPHEMERAL_ENABLED="false")
    log = (workdir / "serve.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "flows.nightly", "--config", str(config), "--cron", "0 2 * * *",
                             "--evaluate"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        with temporary_settings(updates={PREFECT_API_URL: prefect_server}), get_client(sync_client=True) as c:
            deadline = time.monotonic() + 120
            while True:  # the serving process registers the deployment once it has imported adat
                try:
                    deployment = c.read_deployment_by_name(DEPLOYMENT)
                    break
                except Exception:
                    assert proc.poll() is None and time.monotonic() < deadline, _tail(workdir / "serve.log")
                    time.sleep(1)
            assert deployment.parameters["evaluate"] is True
            yield c
    finally:
        _stop(proc)
        log.close()


def _tail(path: Path, chars: int = 4000) -> str:
    return path.read_text(errors="replace")[-chars:]


def _night(workdir: Path, **parameters: Any) -> Any:
    """Trigger the deployment through the API and wait for the flow run to finish."""
    from prefect.deployments import run_deployment

    run = run_deployment(DEPLOYMENT, parameters=parameters, timeout=420, poll_interval=2, as_subflow=False)
    assert run.state is not None and run.state.is_completed(), (run.state, _tail(workdir / "serve.log"))
    return run


@pytest.fixture(scope="module")
def first_night(client: Any, workdir: Path) -> Any:
    return _night(workdir)


@pytest.fixture(scope="module")
def second_night(client: Any, first_night: Any, workdir: Path) -> Any:
    return _night(workdir, run_prefix="later", evaluate=False)


def _artifacts(client: Any, flow_run_id: Any) -> dict[str, Any]:
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    found = client.read_artifacts(artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])))
    return {a.key: a for a in found}


def _subflows(client: Any, flow_run_id: Any) -> dict[str, Any]:
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterParentFlowRunId

    runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(parent_flow_run_id=FlowRunFilterParentFlowRunId(
        any_=[flow_run_id])))
    return {r.name: r for r in runs}


def _logged(client: Any, flow_run_id: Any, *wanted: str, timeout: float = 30) -> list[str]:
    """The wanted substrings missing from the flow run's logs (its tasks' included) once they have
    arrived (a finished run's last log batch can land after its final state)."""
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    deadline = time.monotonic() + timeout
    while True:
        text = "\n".join(log.message for log in client.read_logs(
            log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id])), limit=200))
        missing = [w for w in wanted if w not in text]
        if not missing or time.monotonic() > deadline:
            return missing
        time.sleep(1)


def _rows(artifact: Any) -> list[dict[str, Any]]:
    data = json.loads(artifact.data) if isinstance(artifact.data, str) else artifact.data
    assert isinstance(data, list) and data, artifact.key
    return data


def _link(artifact: Any) -> str:
    """The URL of a link artifact (its data is the markdown ``[text](url)``)."""
    found = re.search(r"\]\((.+)\)\s*$", str(artifact.data))
    return found.group(1) if found else str(artifact.data)


def _by(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {r[key]: r for r in rows}


def test_the_deployment_run_carries_the_night_and_the_evaluate_run_its_metrics(client, first_night, workdir: Path):
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    run_id = first_night.name  # the flow-run name is the run id the warehouse holds
    assert re.fullmatch(r"nightly-\d{8}-\d{4}", run_id)
    assert [r.status for r in read_records(workdir / "data", "runs", run_id=run_id)][-1] == "completed"
    own = _artifacts(client, first_night.id)
    assert {"adat-nightly", "adat-nightly-headline", "adat-verdicts", "adat-evaluation", "adat-report"} <= set(own)
    summary = own["adat-nightly"].data
    assert f"# adat nightly `{run_id}`" in summary and "offline/heuristic" in summary
    assert "First night of this config" in summary
    report = workdir / "data" / "reports" / run_id / "report.html"
    link = _link(own["adat-report"])  # served by the process serving the deployment, not file://
    assert report.is_file() and link.startswith("http://") and link.endswith(f"/{run_id}/report.html")
    assert f"]({link})" in summary and "file://" not in summary
    import httpx

    page = httpx.get(link, timeout=30)
    assert page.status_code == 200 and page.text == report.read_text(encoding="utf-8")
    tables = [key for key, artifact in own.items() if artifact.type == "table"]
    assert all(f"`{key}`" in summary for key in tables)  # linked from the summary
    for key in tables:
        rows = _rows(own[key])
        assert all(list(r) == list(rows[0]) for r in rows), f"{key}: rows with different columns"
    assert list(_rows(own["adat-verdicts"])[0]) == ["kind", "pass", "fail", "inconclusive", "unjudged"]
    headline = _by(_rows(own["adat-nightly-headline"]), "measure")
    assert headline["plain tests"]["this night"] > 0 and headline["plain tests"]["previous night"] is None

    subflows = _subflows(client, first_night.id)
    assert {f"{run_id}-pipeline", f"{run_id}-evaluate"} <= set(subflows), sorted(subflows)
    assert not _artifacts(client, subflows[f"{run_id}-pipeline"].id)  # the parent run carries the night
    evaluate = subflows[f"{run_id}-evaluate"]
    evaluation = _artifacts(client, evaluate.id)
    metrics = _by(_rows(evaluation["adat-evaluation"]), "metric")
    assert {"V/C", "FAR", "mutation score"} <= set(metrics)
    assert 0 <= metrics["V/C"]["value"] <= 1 and metrics["V/C"]["value"] == headline["V/C"]["this night"]
    assert metrics["FAR"]["value"] is not None and metrics["mutation score"]["value"] is not None
    assert " of 1 faults" in metrics["mutation score"]["detail"]  # killed / activated of the faults run
    assert [r["fault"] for r in _rows(evaluation["adat-fault-detection"])] == FAULTS
    assert not _logged(client, evaluate.id, "audited tests: ", f"executions on {FAULTS[0]}: ",
                       f"regression 1/1: {FAULTS[0]} (")  # progress the UI shows
    tasks = {t.name for t in client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[evaluate.id])))}
    assert {f"regression-{f}" for f in FAULTS} <= tasks and any(t.startswith("audit-") for t in tasks), sorted(tasks)


def test_the_next_night_stands_next_to_the_previous_one_with_the_diff(client, first_night, second_night,
                                                                      workdir: Path):
    run_id, later_id = first_night.name, second_night.name
    assert later_id.startswith("later-")
    report = (workdir / "data" / "reports" / later_id / "report.html").read_text(encoding="utf-8")
    assert f"Compared with <code>{run_id}</code>" in report  # the report's statements: the same previous night
    own = _artifacts(client, second_night.id)
    summary = own["adat-nightly"].data
    assert f"Previous night of the same config: `{run_id}`" in summary
    assert f"`{run_id}` → `{later_id}`" in summary and "| verdicts pass → fail |" in summary  # adat diff, folded in
    headline = _by(_rows(own["adat-nightly-headline"]), "measure")
    before = _by(_rows(_artifacts(client, first_night.id)["adat-nightly-headline"]), "measure")
    assert headline["plain tests"]["previous night"] == before["plain tests"]["this night"]
    assert headline["V/C"]["this night"] is None  # not evaluated tonight: no figure, not 0
    assert headline["V/C"]["previous night"] == before["V/C"]["this night"] is not None
    assert "adat-evaluation" not in own


def _wait(client: Any, flow_run_id: Any, timeout: float = 600) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        run = client.read_flow_run(flow_run_id)
        if run.state is not None and run.state.is_final():
            return run
        assert time.monotonic() < deadline, f"flow run {flow_run_id} did not finish: {run.state}"
        time.sleep(2)


@pytest.fixture(scope="module")
def twin_nights(client: Any, second_night: Any, workdir: Path) -> list[Any]:
    """Two nights of the deployment scheduled in the same minute, running at once."""
    from datetime import UTC, datetime

    from prefect.deployments import run_deployment

    minute = datetime.now(UTC).replace(second=0, microsecond=0)
    started = [run_deployment(DEPLOYMENT, parameters={"run_prefix": "twin", "evaluate": False}, scheduled_time=minute,
                              timeout=0, as_subflow=False) for _ in range(2)]
    return [_wait(client, run.id) for run in started]


def test_two_nights_of_the_same_minute_get_their_own_run_ids_and_nothing_is_merged(client, twin_nights,
                                                                                    workdir: Path):
    from adat.config import adat_home
    from adat.warehouse import build_catalog, run_query

    assert all(run.state.is_completed() for run in twin_nights), (
        [(r.name, r.state.type.value, r.state.message) for r in twin_nights], _tail(workdir / "serve.log"))
    names = sorted(run.name for run in twin_nights)  # flow runs are renamed to the run id they wrote
    assert re.fullmatch(r"twin-\d{8}-\d{4}", names[0]) and re.fullmatch(re.escape(names[0]) + r"-[0-9a-f]{4}", names[1])
    for name in names:
        assert [r.status for r in read_records(workdir / "data", "runs", run_id=name)][-1] == "completed"
    missing = _logged(client, next(r.id for r in twin_nights if r.name == names[1]), "belongs to another flow run")
    assert not missing
    db = build_catalog(workdir / "data", adat_home() / "sql")
    for check in sorted((adat_home() / "sql" / "checks").glob("*.sql")):
        rows = run_query(db, check, {"run_id": None}).to_pylist()
        assert rows == [], f"sql/checks/{check.name}: {rows[:3]}"


@pytest.fixture(scope="module")
def red_night(client: Any, first_night: Any, twin_nights: Any, workdir: Path) -> Any:
    """The first night's suite blessed; a night of it against a seeded fault."""
    import yaml

    from adat.suites.suite_blessings import bless

    bless(workdir / "data", first_night.name, "nightly")
    data = yaml.safe_load((workdir / "nightly.yaml").read_text())
    data["target"]["fault"] = RED_FAULT
    data["nightly"] = {"suite": "nightly", "regenerate": "never"}
    (workdir / "faulty.yaml").write_text(yaml.safe_dump(data))
    from prefect.deployments import run_deployment

    return run_deployment(DEPLOYMENT, parameters={"config_path": str(workdir / "faulty.yaml"), "evaluate": False},
                          timeout=420, poll_interval=2, as_subflow=False)


def test_a_night_with_a_regression_ends_failed_with_one_line_and_names_its_tests(client, first_night, red_night,
                                                                               workdir: Path):
    import httpx

    from adat.warehouse.queries import ReportQueries

    assert red_night.state.is_failed(), (red_night.state, _tail(workdir / "serve.log"))
    message = red_night.state.message
    assert f"night {red_night.name}: " in message and f"pass -> fail against {first_night.name}" in message
    assert len(message.splitlines()) == 1
    assert {"adat", "offline", "suite:nightly", "blessed-suite"} <= set(red_night.tags), red_night.tags
    rows = ReportQueries(workdir / "data").rows("verdict_changes", run_a=first_night.name, run_b=red_night.name)
    flipped = [r for r in rows if r["variant_key"] == "(run target)" and r["change"] == "pass -> fail"]
    own = _artifacts(client, red_night.id)
    summary = own["adat-nightly"].data
    assert summary.index("## Needs attention") < summary.index("| measure |")
    for r in flipped:
        assert f"`{r['test_id']}`" in summary
    # the gate's tests (its own order: by test) are the pass -> fail rows of the diff
    assert sorted(r["test_id"] for r in _rows(own["adat-newly-failing"])) == sorted(r["test_id"] for r in flipped)
    assert _rows(own["adat-newly-failing"])[0]["rationale"]
    subflows = _subflows(client, red_night.id)
    assert f"{red_night.name}-run-suite" in subflows and "offline" in subflows[f"{red_night.name}-run-suite"].tags
    page = httpx.get(_link(own["adat-report"]), timeout=30)
    assert page.status_code == 200 and red_night.name in page.text


def test_serving_the_nightly_with_a_bad_config_is_one_line_before_serving(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "flows.nightly", "--config", str(tmp_path / "missing.yaml")],
                          cwd=REPO, env=_env(tmp_path / "home"), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "missing.yaml" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
