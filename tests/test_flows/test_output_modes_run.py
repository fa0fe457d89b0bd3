"""`adat run` against servers that each accept one structured-output form (issue 29): preflight
probes the endpoint, picks the strongest form it takes, says so, and the run completes on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adat.serving import serve_agent
from adat.warehouse import read_records
from adat_reference.agent import ReferenceAgent
from tests.support.mode_server import ModeServer
from tests.test_flows.test_adat_run_http_openai import adat_run, scripted_model

pytestmark = pytest.mark.slow

#: server kind -> the mode preflight must choose, and the response_format type the run then sends
CASES = {"json_schema": ("json_schema", "json_schema"),
         "json_object_schema": ("json_object_schema", "json_object"),
         "prompt_fenced": ("prompt", None)}


@pytest.mark.parametrize("accepts", list(CASES))
def test_a_small_run_completes_on_a_server_that_takes_one_form(tmp_path: Path, accepts: str) -> None:
    mode, sent_type = CASES[accepts]
    server, agent_url = serve_agent(ReferenceAgent())
    try:
        with ModeServer(accepts, scripted_model) as chat:
            proc = adat_run(tmp_path, f"mode-{accepts}", {"type": "http", "base_url": agent_url}, chat.base_url)
            bodies = list(chat.requests)
    finally:
        server.stop()
    # preflight said which form it chose, and recorded it in the data dir
    assert "output mode of scripted-model" in proc.stdout and f": {mode} (probed" in proc.stdout, proc.stdout
    stored = json.loads((tmp_path / "data" / "_llm" / "output_modes.json").read_text())
    assert [entry["mode"] for entry in stored.values()] == [mode]
    root = tmp_path / "data"
    run = read_records(root, "runs", run_id=f"mode-{accepts}")[-1]
    assert run.status == "completed", run.error
    assert read_records(root, "tests", run_id=f"mode-{accepts}")
    calls = read_records(root, "llm_calls", run_id=f"mode-{accepts}")
    assert calls and all(c.error is None and c.output_mode == mode for c in calls)
    role_bodies = [b for b in bodies if "sky above Paris" not in json.dumps(b["messages"])]  # not the probe
    assert role_bodies and {(b.get("response_format") or {}).get("type") for b in role_bodies} == {sent_type}
