"""adat.redaction: one registry of secrets, scrubbed at every sink (warehouse rows, log records,
the HTML report and the JUnit export); config header values and ${VAR} expansions register."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from adat import redaction
from adat.config import HttpTarget as HttpTargetConfig
from adat.config import expand_env_refs
from adat.records import Execution, Turn
from adat.warehouse import read_records, write_records

SECRET = 'sk-"Zq81"&<x>/?=+ 9'  # characters every escaping (JSON, HTML, URL) changes


def test_every_spelling_of_a_secret_is_masked() -> None:
    import html
    import json
    import urllib.parse

    redaction.register(SECRET)
    for spelling in (SECRET, json.dumps(SECRET)[1:-1], html.escape(SECRET), html.escape(SECRET, quote=False),
                     urllib.parse.quote(SECRET, safe=""), urllib.parse.quote_plus(SECRET)):
        assert redaction.scrub(f"before {spelling} after") == "before *** after", spelling


def test_short_values_are_not_secrets_and_the_longest_secret_is_masked_whole() -> None:
    redaction.register("on", "abcd", "abcd-efgh-ijkl")
    assert redaction.scrub("on abcd-efgh-ijkl abcd") == "on *** ***"


def test_nothing_registered_changes_nothing() -> None:
    value = {"a": ["x", ("y", 1)], "b": None}
    assert redaction.scrub_value(value) is value


def test_an_http_target_config_registers_its_header_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADAT_TEST_HDR_KEY", "k3y-from-env")
    monkeypatch.delenv("ADAT_TEST_HDR_UNSET", raising=False)
    HttpTargetConfig(base_url="http://127.0.0.1:1", headers={
        "Authorization": "Bearer ${ADAT_TEST_HDR_KEY}", "X-Tenant": "tenant-42", "X-Later": "${ADAT_TEST_HDR_UNSET}"})
    text = redaction.scrub("Bearer k3y-from-env, tenant-42, k3y-from-env")
    assert "k3y-from-env" not in text and "tenant-42" not in text


def test_expand_env_refs_registers_what_it_expands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADAT_TEST_EXPANDED", "expanded-value-1")
    assert expand_env_refs("x ${ADAT_TEST_EXPANDED}", field="f") == "x expanded-value-1"
    assert redaction.scrub("got expanded-value-1") == "got ***"


def test_warehouse_rows_are_scrubbed_on_write(tmp_path: Path) -> None:
    redaction.register(SECRET)
    execution = Execution(execution_id="e1", run_id="r1", test_id="t1", agent_id="a", error=f"HTTP 400: {SECRET}",
                          turns=[Turn(role="agent", text=f"you sent {SECRET}", ts=0.0)])
    path = write_records(tmp_path, "executions", [execution], run_id="r1")
    assert path is not None
    back = read_records(tmp_path, "executions", run_id="r1")[0]
    assert isinstance(back, Execution)
    assert back.error == "HTTP 400: ***" and back.turns[0].text == "you sent ***"


def test_log_records_and_tracebacks_are_scrubbed() -> None:
    redaction.register(SECRET)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("adat.test_redaction")
    logger.addHandler(handler)
    try:
        logger.warning("agent said %s", SECRET)
        try:
            raise ValueError(f"boom {SECRET}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "agent said ***" in text and "ValueError: boom ***" in text and SECRET not in text
