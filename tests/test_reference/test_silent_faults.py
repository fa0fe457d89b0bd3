"""The silent fault pack (catalogs/faults/retail-silent, issue 27 item 5): each fault leaves the
reference agent's replies to its probe word for word the original's — that is what *silent*
means — while the tool calls the agent reports differ, and the side log records the fault taking
effect at its rule (how the evaluation activates and attributes it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from adat.errors import UserError
from adat_reference.agent import RULE_IDS, ReferenceAgent, fault_ids, load_fault
from adat_reference.agent.silent import BEHAVIOURS
from adat_reference.retail import RetailDB, default_db_path, default_policy_path

ROOT = Path(__file__).resolve().parents[2]
SILENT = ROOT / "catalogs" / "faults" / "retail-silent"
SHIPPED = ROOT / "catalogs" / "faults" / "retail"
FAULTS = fault_ids(SILENT)

Call = tuple[int, str, str]  # (user turn, tool name, arguments as JSON text)


@pytest.fixture(scope="module")
def retail_db() -> RetailDB:
    return RetailDB.load(default_db_path())


def _converse(db: RetailDB, messages: list[str], fault: str | None) -> tuple[ReferenceAgent, str, list[str],
                                                                            list[Call]]:
    """(agent, session, replies, the tool calls the agent *reported* with its replies)."""
    agent = ReferenceAgent(db, fault=fault, fault_dir=SILENT if fault else None)
    session = agent.reset()
    replies, calls = [], []
    for turn, message in enumerate(messages):
        reply = agent.invoke(session, message)
        replies.append(reply.text)
        calls += [(turn, c.name, json.dumps(c.arguments, sort_keys=True)) for c in reply.tool_calls]
    return agent, session, replies, calls


def test_the_pack_has_six_or_more_tool_call_faults_and_no_rule_flip() -> None:
    assert len(FAULTS) >= 6
    faults = [load_fault(f, SILENT) for f in FAULTS]
    assert {f.rule for f in faults} <= set(RULE_IDS)
    assert {f.override.tool_calls for f in faults} == set(BEHAVIOURS)  # every behaviour has its fault
    for fault in faults:  # the words stay the policy's: no new sentence, parameter or forced outcome
        assert fault.override.tool_calls is not None
        assert not fault.override.params and not fault.override.sentences and fault.override.outcome is None
    policy = default_policy_path().read_text(encoding="utf-8")
    for fault in faults:
        assert fault.passage_before in policy and fault.passage_after not in policy, fault.id


@pytest.mark.parametrize("fault_id", FAULTS)
def test_probe_replies_are_the_originals_while_the_tool_calls_differ(fault_id: str, retail_db: RetailDB) -> None:
    fault = load_fault(fault_id, SILENT)
    original, s0, replies0, calls0 = _converse(retail_db, fault.probe.messages, None)
    faulty, s1, replies1, calls1 = _converse(retail_db, fault.probe.messages, fault_id)
    assert replies1 == replies0, "a silent fault must not change what the agent says"
    assert calls1 != calls0, "the reported tool trace must show the fault"
    # the side log: the fault took effect at its rule, at the turn of the first differing call
    first = min(call[0] for call in set(calls1) ^ set(calls0))
    activations = faulty.fault_activations(s1)
    assert activations and {rule for rule, _ in activations} == {fault.rule}
    assert activations[0][1] <= first
    assert original.fault_activations(s0) == []
    assert (fault.rule, "denied", activations[0][1]) in faulty.side_log(s1)


@pytest.mark.parametrize("fault_id", FAULTS)
def test_the_database_shows_it_too(fault_id: str, retail_db: RetailDB) -> None:
    # what the auditor compares (writes and end state): every probe ends in another state
    fault = load_fault(fault_id, SILENT)
    original, s0, _, _ = _converse(retail_db, fault.probe.messages, None)
    faulty, s1, _, _ = _converse(retail_db, fault.probe.messages, fault_id)
    if fault.override.tool_calls in ("identity_without_lookup", "write_before_confirmation"):
        # the same write, made without a lookup or before the yes: only the trace shows these two
        assert original.session_db_hash(s0) == faulty.session_db_hash(s1)
    else:
        assert original.session_db_hash(s0) != faulty.session_db_hash(s1)


def test_where_the_fault_has_nothing_to_act_on_the_agent_is_the_original(retail_db: RetailDB) -> None:
    # chloe has one payment method: no other method for the refund to go to, so nothing changes
    messages = ["Hi, my email is chloe.costa1018@example.com.",
                "I want to return item 9181277449 from order #W2962609, refund to credit_card_6058687.", "yes"]
    _, _, replies0, calls0 = _converse(retail_db, messages, None)
    faulty, s1, replies1, calls1 = _converse(retail_db, messages, "refund_to_other_method")
    assert replies1 == replies0 and calls1 == calls0 and "return_delivered_order_items" in [c[1] for c in calls0]
    assert faulty.fault_activations(s1) == []


def test_the_shipped_pack_is_untouched() -> None:
    shipped = fault_ids(SHIPPED)
    assert not set(shipped) & set(FAULTS)
    assert all(load_fault(f, SHIPPED).override.tool_calls is None for f in shipped)
    assert fault_ids() == shipped  # the default pack is still the shipped one


def test_adat_fault_dir_loads_the_pack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADAT_FAULT_DIR", str(SILENT))
    assert fault_ids() == FAULTS
    assert ReferenceAgent(fault=FAULTS[0]).agent_id == f"reference-retail+{FAULTS[0]}"
    proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", "faults"],
                          env={**__import__("os").environ, "ADAT_FAULT_DIR": str(SILENT)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert all(f in proc.stdout for f in FAULTS)


def test_an_unknown_behaviour_is_one_line_naming_the_field(tmp_path: Path) -> None:
    doc: dict[str, Any] = yaml.safe_load((SILENT / f"{FAULTS[0]}.yaml").read_text(encoding="utf-8"))
    doc["override"] = {"tool_calls": "write_twice"}
    (tmp_path / f"{FAULTS[0]}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(UserError) as err:
        load_fault(FAULTS[0], tmp_path)
    assert "override.tool_calls" in str(err.value) and "\n" not in str(err.value)


def test_the_tester_never_names_the_pack() -> None:
    # the tester (adat, the offline stand-in, the prompts) knows nothing of these faults
    words = set(FAULTS) | set(BEHAVIOURS)
    roots = [ROOT / "src" / "adat", ROOT / "src" / "adat_offline", ROOT / "catalogs" / "prompts"]
    files = [p for root in roots for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".yaml", ".md",
                                                                                          ".j2", ".txt")]
    assert len(files) > 50
    hits = [(str(p.relative_to(ROOT)), w) for p in files for w in words if w in p.read_text(encoding="utf-8")]
    assert hits == []


def _other_probes() -> list[list[str]]:
    packs = (SHIPPED, ROOT / "catalogs" / "faults" / "retail-holdout")
    return [load_fault(f, pack).probe.messages for pack in packs for f in fault_ids(pack)]


@pytest.mark.parametrize("fault_id", FAULTS)
def test_silent_on_every_other_probe_too(fault_id: str, retail_db: RetailDB) -> None:
    # silence is not a property of one script: on the other packs' probes (refusals, changes,
    # lookups, confirmations) the replies stay the original's
    probes = _other_probes()
    assert len(probes) >= 40
    for messages in probes:
        _, _, replies0, _ = _converse(retail_db, messages, None)
        _, _, replies1, _ = _converse(retail_db, messages, fault_id)
        assert replies1 == replies0, messages
