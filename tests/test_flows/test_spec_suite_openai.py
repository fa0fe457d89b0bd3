"""`adat spec run SPEC --config FILE` end to end with every role on the `openai` provider (the
real openai client) against the local chat-completions server: TestSmith, PromptSmith,
MutationSmith and the spec agent itself (tool calls, `respond`). The spec is written here, with
its own tools and decisions; the figures come from sql/metrics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from adat.warehouse import read_records
from adat.warehouse.queries import ReportQueries
from tests.support.chat_server import ChatServer, Reply
from tests.test_sql.conftest import SQL_DIR
from tests.test_tdad.loop_fakes import LIBRARY_SPEC, SEED

pytestmark = pytest.mark.slow

RULE = "- [L1_CARD_FIRST] Always call lookup_member before renew_loan."
SPEC = {**LIBRARY_SPEC, "tests": {"hidden": {"generators": [{"type": "paraphrase"}]}}}
PACK = {"mutation_pack_id": "library", "generator": {"max_attempts": 2},
        "mutations": [{"id": "SKIP_LOOKUP", "intent": "Never call lookup_member; renew straight away.",
                       "activation_probe": {"case": "renew", "user_turns": ["renew my book, card 42"],
                                            "expect_violation": {"trace": {"called": ["renew_loan"],
                                                                           "not_called": ["lookup_member"]}}}}]}


def _test(family: str, turn: str) -> dict[str, Any]:
    return {"family": family, "title": f"renew ({family})", "user_turns": [turn],
            "fixtures": [{"tool": "lookup_member", "output_json": '{"member": "42"}'},
                         {"tool": "renew_loan", "output_json": '{"status": "renewed"}'}],
            "assertions": [{"kind": "tool_order", "clause": "L1_CARD_FIRST", "tools": ["lookup_member", "renew_loan"]},
                           {"kind": "decision_in", "clause": "R2_RENEW", "values": ["RENEWED"]}],
            "clauses": ["L1_CARD_FIRST", "R2_RENEW"]}


def _tools() -> list[dict[str, str]]:
    return [{"name": k, "description": v} for k, v in SEED.tool_descriptions.items()]


def scripted_model(body: dict[str, Any]) -> Reply | str:
    """TestSmith, PromptSmith and MutationSmith by schema name; the agent by its system prompt."""
    name = body.get("response_format", {}).get("json_schema", {}).get("name", "")
    if name == "TestSmithOutput":
        return json.dumps({"tests": [_test("MFT", "renew my book, card 42"),
                                     _test("paraphrase", "could you extend my loan? card 42")]})
    if name == "PromptSmithOutput":
        return json.dumps({"system_prompt": SEED.system_prompt + RULE + "\n", "tool_descriptions": _tools(),
                           "rationale": "adds the card-first rule"})
    if name == "MutationSmithOutput":
        return json.dumps({"system_prompt": SEED.system_prompt, "tool_descriptions": _tools(), "rationale": "drops it"})
    assert body.get("tools"), f"unexpected request {name!r}"
    messages = body["messages"]
    plan = ["lookup_member", "renew_loan", "respond"] if RULE in messages[0]["content"] else ["renew_loan", "respond"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    done = [c["function"]["name"] for m in messages[last_user:] if m["role"] == "assistant"
            for c in m.get("tool_calls") or []]
    tool = plan[len(done)]
    args: dict[str, Any] = {"decision": "RENEWED", "user_message": "Renewed."} if tool == "respond" else {}
    return Reply(tool_calls=[{"id": f"call_{len(done)}", "type": "function",
                              "function": {"name": tool, "arguments": json.dumps(args)}}])


def _write(tmp_path: Path) -> tuple[Path, Path, Path]:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(SPEC))
    pack = tmp_path / "pack.yaml"
    pack.write_text(yaml.safe_dump(PACK))
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "seed_prompt.txt").write_text(SEED.system_prompt)
    (seed / "seed_tool_descriptions.yaml").write_text(yaml.safe_dump(SEED.tool_descriptions))
    return spec, pack, seed


def test_spec_run_with_every_role_on_the_openai_provider(tmp_path: Path, prefect_api_url: str) -> None:
    spec, pack, seed = _write(tmp_path)
    config = {"run_id": "spec-openai", "data_dir": str(tmp_path / "data"),
              "models": {"testsmith": "openai/scripted-model", "promptsmith": "openai/scripted-model",
                         "mutationsmith": "openai/scripted-model", "spec_agent": "openai/scripted-model"},
              "llm": {"base_url": "", "api_key_env": "ADAT_TEST_KEY", "max_retries": 1}}
    with ChatServer() as chat:
        chat.responder = scripted_model
        config["llm"]["base_url"] = chat.base_url  # type: ignore[index]
        cfg_path = tmp_path / "run.yaml"
        cfg_path.write_text(yaml.safe_dump(config))
        # the test session's Prefect server (as with `adat server`), not a temporary one of its own
        env = {**os.environ, "ADAT_TEST_KEY": "sk-local-test", "ADAT_CACHE_DIR": str(tmp_path / "cache"),
               "PREFECT_HOME": str(tmp_path / "prefect-home"), "PREFECT_API_URL": prefect_api_url}
        proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "spec", "run", str(spec),
                               "--config", str(cfg_path), "--pack", str(pack), "--seed", str(seed), "--reruns", "2"],
                              env=env, capture_output=True, text=True, timeout=600)
        requests = list(chat.requests)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    root = tmp_path / "data"
    calls = read_records(root, "llm_calls", run_id="spec-openai")
    assert {c.role for c in calls} == {"testsmith", "promptsmith", "mutationsmith", "spec_agent"}
    assert {(c.provider, c.model) for c in calls} == {("openai", "scripted-model")}
    # every call's row is written: none is left to the closing journal fold as pending (two clients
    # made at once by the reruns' threads lost one client's rows, 2 runs in 3 before the fix)
    assert all(c.error is None for c in calls), [c.error for c in calls if c.error]
    assert any(r.body.get("tools") for r in requests) and all(
        r.headers.get("authorization") == "Bearer sk-local-test" for r in requests)
    queries = ReportQueries(root, SQL_DIR)

    def metric(name: str) -> list[dict[str, Any]]:
        return queries.rows(name, run_id="spec-openai")

    vpr = metric("tdad_vpr_by_iteration")
    assert [r["vpr"] for r in vpr] == [0.0, 1.0]  # the seed never looks the member up; one edit fixes it
    assert metric("tdad_hidden_pass_rate")[0]["hpr"] == 1.0
    (ms,) = metric("mutation_score")
    assert (ms["kind"], ms["activated"], ms["killed"], ms["mutation_score"]) == ("prompt", 1, 1, 1.0)
    assert metric("tdad_pass_k")[0]["k"] == 2
    assert "VPR per compile iteration" in proc.stdout and "MS: 100%" in proc.stdout
    assert "sk-local-test" not in proc.stdout + proc.stderr
