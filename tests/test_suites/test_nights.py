"""Two generated nights of one config, a blessed suite carried to an empty warehouse, and a night
that a seeded fault turns red (issue 25, items 1, 2 and 6).

Under a real (ephemeral) Prefect API; reference agent, offline/heuristic provider throughout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from adat.cli.flow_loader import load_flow
from adat.cli.main import app
from adat.config import RunConfig, adat_home
from adat.errors import UserError
from adat.warehouse import run_query
from adat.warehouse.queries import ReportQueries
from tests.support.demo_config import small_demo_config, write_config

pytestmark = pytest.mark.slow
FAULT = "no_write_confirmation"


@dataclass
class Nights:
    base: Path
    root: Path
    cfg: RunConfig
    config: Path


@pytest.fixture(scope="module")
def nights(prefect_harness, tmp_path_factory: pytest.TempPathFactory) -> Nights:
    base = tmp_path_factory.mktemp("nights")
    cfg = small_demo_config(base / "data", sessions=8, n=8)
    # A config whose selection does not learn from earlier nights (docs/suites.md, "What to expect":
    # with history on, the next night deliberately tries other instructions: new tests, not the same)
    cfg = cfg.model_copy(update={"selector": cfg.selector.model_copy(update={"history_weight": 0.0})})
    config = write_config(cfg, base / "retail.yaml")
    for run_id in ("night-1", "night-2"):  # the same config on two nights
        load_flow("pipeline")(config=cfg.model_copy(update={"run_id": run_id}))
    load_flow("pipeline")(config=cfg.model_copy(update={"run_id": "night-seed", "seed": 7}))
    return Nights(base=base, root=cfg.data_path(), cfg=cfg, config=config)


def _adat(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def checks_empty(root: Path) -> None:
    """Every ``sql/checks`` query over every run of the warehouse returns no row."""
    from adat.warehouse import build_catalog

    db = build_catalog(root, adat_home() / "sql")
    for check in sorted((adat_home() / "sql" / "checks").glob("*.sql")):
        rows = run_query(db, check, {"run_id": None}).to_pylist()
        assert rows == [], f"sql/checks/{check.name}: {rows[:3]}"


def test_adat_diff_pairs_two_generated_nights_by_content(nights: Nights) -> None:
    out = _adat("diff", "night-1", "night-2", "--data-dir", str(nights.root)).output
    paired, total = re.search(r"tests: (\d+) paired \(\d+% of night-2's (\d+)\)", out).groups()  # type: ignore[union-attr]
    assert int(total) >= 10 and int(paired) / int(total) >= 0.9, out
    ids = [ReportQueries(nights.root).rows("test_identity_inputs", run_id=r) for r in ("night-1", "night-2")]
    assert not {t["test_id"] for t in ids[0]} & {t["test_id"] for t in ids[1]}  # paired by content, not by id
    judged = int(re.search(r"of (\d+) tests judged in both", out).group(1))  # type: ignore[union-attr]
    assert judged >= 0.9 * int(total), out  # verdicts compared over the pairs, not "0 of 0"


def test_another_selector_seed_lists_new_and_retired_tests_and_keeps_the_plain_ones(nights: Nights) -> None:
    from adat.reporting import run_diff

    d = run_diff(nights.root, "night-1", "night-seed")
    assert d.tests is not None and d.tests.new and d.tests.retired
    plain_b = [t for _, t, _ in d.tests.paired if t["kind"] == "plain"]
    assert len(plain_b) == sum(1 for t in [*plain_b, *d.tests.new] if t["kind"] == "plain")  # every plain test paired
    assert all(t["kind"] == "transformed" for t in d.tests.new + d.tests.retired)
    out = _adat("diff", "night-1", "night-seed", "--data-dir", str(nights.root)).output
    assert f"+ new     {d.tests.new[0]['test_id']}" in out and f"- retired {d.tests.retired[0]['test_id']}" in out


def test_a_blessed_suite_exported_and_imported_runs_in_an_empty_warehouse(nights: Nights) -> None:
    root, base = nights.root, nights.base
    assert "blessed" in _adat("suite", "bless", "night-1", "--config", str(nights.config), "--data-dir", str(root)).output
    bundle = base / "retail-suite.zip"
    assert _adat("suite", "export", "retail", str(bundle), "--data-dir", str(root)).exit_code == 0
    empty = base / "ci-data"
    assert "imported" in _adat("suite", "import", str(bundle), "--data-dir", str(empty)).output
    results = {}
    for run_id, fault in (("ci-original", None), ("ci-fault", FAULT)):
        ci = nights.cfg.model_copy(update={"run_id": run_id, "data_dir": str(empty),
                                           "target": nights.cfg.target.model_copy(update={"fault": fault})})
        results[run_id] = _adat("run-suite", "--config", str(write_config(ci, base / f"{run_id}.yaml")),
                                "--suite", "night-1", "--repeat", "3", "--fail-on", "regression",
                                "--junit", str(base / f"{run_id}.xml"))
    assert results["ci-original"].exit_code == 0, results["ci-original"].output
    assert results["ci-fault"].exit_code == 1, results["ci-fault"].output
    assert "pass -> fail" in results["ci-fault"].output
    # the JUnit a CI viewer reads: valid, the gate's failures, readable names, no run id in a classname
    import xml.etree.ElementTree as ET

    import xmlschema

    gate = re.search(r"--fail-on regression: (\d+) test\(s\)", results["ci-fault"].output)
    assert gate is not None, results["ci-fault"].output
    for run_id in ("ci-original", "ci-fault"):
        xmlschema.XMLSchema(str(Path(__file__).resolve().parents[1] / "junit.xsd")).validate(str(base / f"{run_id}.xml"))
    junit = ET.parse(base / "ci-fault.xml").getroot()
    cases = list(junit.iter("testcase"))
    assert sum(c.find("failure") is not None for c in cases) == int(gate.group(1)) == int(junit.get("failures", "-1"))
    assert all(" [te-" in c.get("name", "") and not c.get("name", "").startswith("te-") for c in cases)
    assert all("ci-fault" not in c.get("classname", "") and c.get("classname", "").startswith("adat.")
               for c in cases)
    damaged = base / "damaged"
    _adat("suite", "export", "night-1", str(damaged), "--data-dir", str(root))
    part = next((damaged / "runs" / "tests").rglob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:-1] + b"x")
    result = CliRunner().invoke(app, ["suite", "import", str(damaged), "--data-dir", str(base / "other")])
    assert isinstance(result.exception, UserError) and "is missing or damaged" in str(result.exception)
    assert len(str(result.exception).splitlines()) == 1 and not (base / "other" / "runs" / "tests").exists()


def test_a_night_on_a_faulty_agent_fails_and_names_the_tests_it_turned_from_pass_to_fail(nights: Nights) -> None:
    from adat.warehouse import read_records

    data = yaml.safe_load(nights.config.read_text())
    data["target"]["fault"] = FAULT
    data["nightly"] = {"suite": "retail", "regenerate": "never"}
    faulty = nights.base / "faulty.yaml"
    faulty.write_text(yaml.safe_dump(data))
    _adat("suite", "bless", "night-1", "--name", "retail", "--data-dir", str(nights.root))
    state = load_flow("nightly")(config_path=str(faulty), return_state=True)
    assert state.is_failed() and "pass -> fail against night-1" in state.message, state
    (run_id,) = [r for r in {r.run_id for r in read_records(nights.root, "runs")} if r.startswith("nightly-")]
    rows = ReportQueries(nights.root).rows("verdict_changes", run_a="night-1", run_b=run_id)
    flipped = [r["test_id"] for r in rows if r["variant_key"] == "(run target)" and r["change"] == "pass -> fail"]
    assert flipped and all(t in state.message or len(flipped) > 5 for t in flipped[:5])
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    with get_client(sync_client=True) as client:
        (artifact,) = [a for a in client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=["adat-nightly"]))) if f"`{run_id}`" in (a.data or "")][-1:]
    markdown = artifact.data
    section = markdown.split("### Newly failing")[1].split("### Failing tonight")[0]
    for test_id in flipped:
        assert f"`{test_id}`" in section
    (flip,) = [r for r in rows if r["test_id"] == flipped[0] and r["variant_key"] == "(run target)"]
    assert " ".join(str(flip["goal"]).split())[:60].replace("|", "\\|") in section  # with its goal
    assert " ".join(str(flip["rationale_b"]).split())[:40].replace("|", "\\|") in section  # and tonight's rationale
    checks_empty(nights.root)


def test_a_blessed_night_regenerates_on_schedule_and_lists_candidate_additions(nights: Nights) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    data = yaml.safe_load(nights.config.read_text())
    states = {}
    for mode in ("on_new_statements", "always"):
        data["nightly"] = {"suite": "retail", "regenerate": mode}
        path = nights.base / f"{mode}.yaml"
        path.write_text(yaml.safe_dump(data))
        states[mode] = load_flow("nightly")(config_path=str(path), return_state=True)
    assert all(s.is_completed() for s in states.values()), states  # the original agent: nothing newly fails
    with get_client(sync_client=True) as client:
        runs = {m: client.read_flow_run(s.state_details.flow_run_id) for m, s in states.items()}
        texts = {m: {a.key: a.data for a in client.read_artifacts(artifact_filter=ArtifactFilter(
            flow_run_id=ArtifactFilterFlowRunId(any_=[r.id])))} for m, r in runs.items()}
    quiet, fresh = runs["on_new_statements"].name, runs["always"].name
    assert quiet != fresh and quiet.startswith("nightly-") and fresh.startswith("nightly-")  # never one run id
    run_ids = {r for r in {r.run_id for r in read_records_all(nights.root)}}
    # discovery found every statement of the blessed suite: no suite generated
    assert f"{quiet}-regen" not in run_ids and "Tonight ran the blessed suite `night-1`." in texts["on_new_statements"]["adat-nightly"]
    assert f"{fresh}-regen" in run_ids
    summary = texts["always"]["adat-nightly"]
    assert f"## Candidate additions from `{fresh}-regen`" in summary and "have no counterpart in the blessed suite" in summary
    assert {"regenerate", "blessed-suite", "suite:retail"} <= set(runs["always"].tags)
    checks_empty(nights.root)


def read_records_all(root: Path) -> list[Any]:
    from adat.warehouse import read_records

    return read_records(root, "runs")
