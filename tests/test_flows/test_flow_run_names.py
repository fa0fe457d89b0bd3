"""Flow-run names carry the adat run id the flow body works under (flows/_names.py)."""

from __future__ import annotations

import re

from prefect import flow
from prefect.runtime import flow_run

from flows._names import flow_run_run_id, nightly_name, nightly_run_id, run_named


@flow(flow_run_name=run_named("pipeline"))
def _named(config: dict) -> tuple[str, str]:
    return flow_run_run_id(config), str(flow_run.name)


@flow(flow_run_name=nightly_name)
def _nightly(run_prefix: str = "nightly") -> tuple[str, str]:
    return nightly_run_id(run_prefix), str(flow_run.name)


def test_a_run_without_an_id_is_named_by_the_id_its_body_derives(prefect_harness) -> None:
    run_id, name = _named({"run_id": None})
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{4}", run_id) and name == f"{run_id}-pipeline"
    again, _ = _named({"run_id": None})
    assert again != run_id  # another flow run, another id
    assert _named({"run_id": "given"}) == ("given", "given-pipeline")


def test_a_night_is_named_by_its_run_id(prefect_harness) -> None:
    run_id, name = _nightly("later")
    assert re.fullmatch(r"later-\d{8}-\d{4}", run_id) and name == run_id
