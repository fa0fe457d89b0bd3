"""Issue 29: tolerant parsing, content checks, output modes on the wire, the probe, x-should-retry
and the request journal — through the real openai client against local chat servers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.contracts.adat2_roles import GeneratedTest, JudgeOutput, PlannerOutput
from adat.errors import UserError
from adat.llm import LLMClient, LLMError
from adat.llm.call_journal import CallJournal, fold_journal, journal_path
from adat.llm.output_modes import cached_mode, probe_output_mode, resolve_mode
from adat.llm.output_schema import OutputInvalid, extract_json, parse_output
from adat.warehouse import read_records
from tests.support.chat_server import ChatServer, Reply
from tests.test_llm.conftest import Answer

VARS = {"question": "How many orders?", "reply": "You have 3 orders."}


def make_client(cfg: RunConfig, prompts_dir: Path, tmp_path: Path, **kw: object) -> LLMClient:
    return LLMClient(cfg, "run-1", prompts_dir=prompts_dir, cache_dir=tmp_path / "cache", sleep=lambda _s: None,
                     **kw)  # type: ignore[arg-type]


# --- tolerant parsing, never guessing ------------------------------------------------------
def test_json_is_extracted_from_fences_and_prose_but_never_guessed() -> None:
    assert extract_json('{"answer": 1}') == {"answer": 1}
    assert extract_json('Sure!\n```json\n{"answer": 2}\n```\nAnything else?') == {"answer": 2}
    assert extract_json('The result is {"answer": 3, "note": "a {brace} inside"} as asked.') == \
        {"answer": 3, "note": "a {brace} inside"}
    assert extract_json('Here: {"answer": 4}. Again: {"answer": 4}') == {"answer": 4}  # the same object twice
    with pytest.raises(OutputInvalid, match="2 different JSON objects"):
        extract_json('Either {"answer": 1} or {"answer": 2}.')
    with pytest.raises(OutputInvalid, match="2 fenced JSON values"):
        extract_json('```json\n{"answer": 1}\n```\nor\n```json\n{"answer": 2}\n```')
    with pytest.raises(OutputInvalid, match="not valid JSON"):
        extract_json("answer: 5 (no JSON here)")
    with pytest.raises(OutputInvalid, match="not valid JSON"):
        extract_json("{'answer': 2}")  # single quotes are not repaired
    assert parse_output('I think:\n{"answer": 6}', Answer) == Answer(answer=6)


def test_answers_that_validate_but_carry_no_content_are_invalid() -> None:
    with pytest.raises(OutputInvalid, match="objective is empty"):
        parse_output(json.dumps({"objective": " ", "strategy": "s"}), PlannerOutput)
    with pytest.raises(OutputInvalid, match="goal is empty"):
        parse_output(json.dumps({"goal": "", "step_hints": ["hi"], "success_criteria": ["x"]}), GeneratedTest)
    with pytest.raises(OutputInvalid, match="success criteria name nothing"):
        parse_output(json.dumps({"goal": "g", "step_hints": ["hi"], "success_criteria": ["", " "]}), GeneratedTest)
    with pytest.raises(OutputInvalid, match="'pass' names no criterion"):
        parse_output(json.dumps({"verdict": "pass", "rationale": "fine", "criteria": []}), JudgeOutput)
    judged = {"criterion": "asks first", "kind": "success", "holds": True}
    assert parse_output(json.dumps({"verdict": "pass", "rationale": "", "criteria": [judged]}), JudgeOutput)
    assert parse_output(json.dumps({"verdict": "inconclusive", "rationale": "no reply"}), JudgeOutput)


def test_content_free_answers_are_counted_invalid_on_the_call_row(chat_server: ChatServer,
                                                                   openai_cfg: Callable[..., RunConfig],
                                                                   prompts_dir: Path, tmp_path: Path) -> None:
    (prompts_dir / "judge_it.yaml").write_text((prompts_dir / "answer.yaml").read_text().replace("id: answer",
                                                                                                  "id: judge_it"))
    empty = {"verdict": "fail", "rationale": "", "criteria": []}
    chat_server.push_json(empty)
    chat_server.push_json(empty)
    client = make_client(openai_cfg(), prompts_dir, tmp_path)
    with pytest.raises(LLMError, match="names no criterion"):
        client.structured("judge", "judge_it", VARS, JudgeOutput)
    row = client.drain_calls()[0]
    assert (row.invalid_answers, row.repaired, row.output_mode) == (2, True, "json_schema")
    assert "no usable content" in chat_server.requests[1].body["messages"][-1]["content"]  # re-asked with the error
    assert client.role_failures["judge"] == 1 and client.role_invalid["judge"] == 2


# --- modes on the wire ---------------------------------------------------------------------
@pytest.mark.parametrize(("mode", "fmt"), [("json_object_schema", "json_object"), ("json_object", "json_object"),
                                           ("prompt", None)])
def test_each_mode_sends_its_form_and_the_schema_in_words(chat_server: ChatServer,
                                                          openai_cfg: Callable[..., RunConfig], prompts_dir: Path,
                                                          tmp_path: Path, mode: str, fmt: str | None) -> None:
    chat_server.push_content('Here you go:\n```json\n{"answer": 7}\n```')
    client = make_client(openai_cfg(output_mode=mode), prompts_dir, tmp_path)
    assert client.structured("judge", "answer", VARS, Answer).answer == 7
    body = chat_server.requests[0].body
    assert (body.get("response_format") or {}).get("type") == fmt
    if fmt is not None:
        assert ("schema" in body["response_format"]) == (mode == "json_object_schema")
    system = body["messages"][0]
    assert system["role"] == "system" and "matches this JSON schema" in system["content"]
    assert system["content"].startswith("You answer questions")  # folded into the prompt's own system message
    assert client.drain_calls()[0].output_mode == mode


# --- the probe -----------------------------------------------------------------------------
def _only(kind: str) -> Callable[[dict], Reply | str]:
    def answer(body: dict) -> Reply | str:
        fmt = body.get("response_format")
        got = None if fmt is None else ("json_object_schema" if "schema" in fmt else fmt["type"])
        if got != kind:
            return Reply(status=500, error_body={"error": {"message": "Input should be 'text' or 'json_object'"}})
        return '```json\n{"ok": true}\n```' if kind is None else '{"ok": true}'
    return answer


@pytest.mark.parametrize(("accepts", "chosen", "asked"), [("json_schema", "json_schema", 1),
                                                           ("json_object_schema", "json_object_schema", 2),
                                                           ("json_object", "json_object", 3), (None, "prompt", 4)])
def test_probe_picks_the_strongest_accepted_form(accepts: str | None, chosen: str, asked: int) -> None:
    with ChatServer() as server:
        server.answer_probes = False
        server.responder = _only(accepts)
        result = probe_output_mode(server.base_url, "sk-x", "m", 5.0)
        assert result.mode == chosen and len(server.requests) == asked
        assert all(v.startswith("HTTP 500") for m, v in result.tried.items() if m != chosen)


def test_probe_result_is_cached_in_the_data_dir_and_a_dead_form_set_is_one_line(tmp_path: Path) -> None:
    with ChatServer() as server:
        server.answer_probes = False
        server.responder = _only("json_object_schema")
        cfg = RunConfig.model_validate({"data_dir": str(tmp_path / "data"), "llm": {"base_url": server.base_url}})
        assert cached_mode(cfg, "m") is None
        assert resolve_mode(cfg, "m", "sk-x", 5.0).mode == "json_object_schema"
        assert cached_mode(cfg, "m") == "json_object_schema" and len(server.requests) == 2
        assert resolve_mode(cfg, "m", "sk-x", 5.0).cached and len(server.requests) == 2  # asked once
        server.responder = lambda _b: Reply(status=400, error_body={"error": {"message": "nope"}})
        with pytest.raises(UserError, match="answered no structured-output request.*HTTP 400: nope"):
            resolve_mode(cfg, "other", "sk-x", 5.0)


# --- SDK retry semantics -------------------------------------------------------------------
def test_x_should_retry_header_is_respected(chat_server: ChatServer, openai_cfg: Callable[..., RunConfig],
                                            prompts_dir: Path, tmp_path: Path) -> None:
    chat_server.push_status(503, headers={"x-should-retry": "false"})
    client = make_client(openai_cfg(), prompts_dir, tmp_path)
    with pytest.raises(LLMError, match="HTTP 503"):
        client.text("judge", "answer", VARS)
    assert client.provider_calls == 1
    chat_server.push_status(400, headers={"x-should-retry": "true"})
    chat_server.push_content("fine")
    assert client.text("judge", "answer", VARS) == "fine"
    assert client.drain_calls()[-1].retries == 1


# --- the journal ---------------------------------------------------------------------------
def test_every_request_is_journaled_before_it_goes_out(chat_server: ChatServer,
                                                       openai_cfg: Callable[..., RunConfig], prompts_dir: Path,
                                                       tmp_path: Path) -> None:
    root = tmp_path / "data"
    chat_server.push_status(500)
    chat_server.push_malformed("not json")
    chat_server.push_json({"answer": 1})
    client = make_client(openai_cfg(), prompts_dir, tmp_path, journal=CallJournal(root, "run-1"))
    client.structured("judge", "answer", VARS, Answer)
    lines = [json.loads(x) for x in journal_path(root, "run-1").read_text().splitlines()]
    assert [x["kind"] for x in lines] == ["send", "retry", "repair"] and len(chat_server.requests) == 3
    row = client.drain_calls()[0]
    assert {x["call_id"] for x in lines} == {row.call_id}
    # the row was never flushed (as in a crash): folding makes one pending row with the same counts
    assert fold_journal(root, "run-1") == 1
    pending = read_records(root, "llm_calls", run_id="run-1")
    assert [(p.call_id, p.pending, p.retries, p.repaired) for p in pending] == [(row.call_id, True, 1, True)]
    assert not journal_path(root, "run-1").exists()


def test_config_check_probe_prints_the_mode_per_role(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from adat.cli.main import app

    monkeypatch.setenv("ADAT_PROBE_KEY", "sk-x")
    with ChatServer() as server:
        server.answer_probes = False
        server.responder = _only("json_object_schema")
        path = tmp_path / "run.yaml"
        path.write_text(json.dumps({"data_dir": str(tmp_path / "data"),
                                    "models": {"judge": "openai/m", "planner": "openai/m"},
                                    "llm": {"base_url": server.base_url, "api_key_env": "ADAT_PROBE_KEY"}}))
        result = CliRunner().invoke(app, ["config", "check", "--probe", str(path)])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("  ")}
    assert "output: json_object_schema (probed; json_schema: HTTP 500" in lines["judge"]
    assert "output: json_object_schema" in lines["planner"]
    assert "output: n/a" in lines["driver"]  # the offline stand-in takes no response_format
