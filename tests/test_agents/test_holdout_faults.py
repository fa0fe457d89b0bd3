"""The held-out retail fault pack (catalogs/faults/retail-holdout, issue #28 item 7): every fault is
a real fault — its probe makes the faulty agent behave differently from the original — and it is
the kind of fault docs/cases.md says it is.

Two kinds of fault are in the pack: *decision flips* (the faulty agent decides its rule unlike the
shipped rule on the probe) and *rewordings* (it decides as the shipped rule but states another
rule when it refuses). One table drives the test, so a fault added to the pack without a row here
fails ``test_every_fault_of_the_pack_has_a_row``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adat_reference.agent import ReferenceAgent, fault_ids, load_fault
from adat_reference.agent.faults import rewords_rule
from adat_reference.retail import RetailDB, default_policy_path

HOLDOUT = Path(__file__).resolve().parents[2] / "catalogs" / "faults" / "retail-holdout"

#: fault id -> (kind of gap from issue #28, what the probe shows: "flip" or "reword")
CASES: dict[str, tuple[str, str]] = {
    "changed_mind_reason_accepted": ("accepted-options list: a near-miss value wrongly accepted", "flip"),
    "paypal_refund_accepted": ("accepted-options list: a near-miss value wrongly accepted", "flip"),
    "first_item_change_refused": ("a limit probed only far from its edge: the value at the edge refused", "flip"),
    "address_zip_optional": ("multi-part requirement: omitting one part wrongly accepted", "flip"),
    "order_additions_taken_on": ("an action adjacent to the stated ones taken on", "flip"),
    "transfer_offer_not_honoured": ("an offered next step (escalation) refused when taken up", "flip"),
    "cancel_refusal_misstated": ("a refusal that states a different rule", "reword"),
    "exchange_refusal_misstated": ("a refusal that states a different rule", "reword"),
}


def _run(db: RetailDB, messages: list[str], fault: str | None) -> tuple[ReferenceAgent, str, list[str]]:
    agent = ReferenceAgent(db, fault=fault, fault_dir=HOLDOUT)
    session = agent.reset()
    return agent, session, [agent.invoke(session, m).text for m in messages]


def test_every_fault_of_the_pack_has_a_row() -> None:
    assert sorted(CASES) == fault_ids(HOLDOUT)
    assert len(CASES) >= 8


def test_no_fault_repeats_a_shipped_flip() -> None:
    shipped = {(f.rule, f.override.model_dump_json()) for f in map(load_fault, fault_ids())}
    for fault_id in CASES:
        fault = load_fault(fault_id, HOLDOUT)
        assert (fault.rule, fault.override.model_dump_json()) not in shipped, fault_id
        assert fault_id not in fault_ids(), f"{fault_id} is also a shipped fault id"


@pytest.mark.parametrize("fault_id", sorted(CASES))
def test_holdout_fault_changes_the_agent(fault_id: str, retail_db: RetailDB) -> None:
    fault = load_fault(fault_id, HOLDOUT)
    policy = default_policy_path().read_text(encoding="utf-8")
    assert fault.passage_before in policy and fault.passage_after not in policy
    original, s0, replies0 = _run(retail_db, fault.probe.messages, None)
    faulty, s1, replies1 = _run(retail_db, fault.probe.messages, fault_id)
    assert replies0[:-1] == replies1[:-1], "the probe's last reply is where the fault shows"
    assert replies0[-1] != replies1[-1]
    last = len(fault.probe.messages) - 1
    kind = CASES[fault_id][1]
    if kind == "flip":
        # the faulty agent decides its rule unlike the shipped rule, at the probe's last turn,
        # toward the fault's direction (the shipped side is the opposite one)
        assert faulty.fault_activations(s1) == [(fault.rule, last)]
        shipped_side = "denied" if fault.direction == "allowed" else "allowed"
        assert (fault.rule, shipped_side, last) in faulty.side_log(s1)
    else:
        # it decides as the shipped rule (a refusal either way) but says something else
        assert faulty.fault_activations(s1) == []
        assert rewords_rule(fault, faulty.rules)
        assert (fault.rule, "denied", last) in original.side_log(s0)
        assert (fault.rule, "denied", last) in faulty.side_log(s1)
        shipped = original.rules.rules[fault.rule].sentences["denied"].split("{")[0]
        assert shipped.strip() and shipped in replies0[-1] and shipped not in replies1[-1]
    assert original.fault_activations(s0) == []


def test_adat_fault_dir_points_every_fault_lookup_at_another_pack(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    from adat.errors import UserError

    shipped = fault_ids()
    monkeypatch.setenv("ADAT_FAULT_DIR", str(HOLDOUT))
    assert fault_ids() == sorted(CASES)
    assert load_fault("address_zip_optional").source == str(HOLDOUT / "address_zip_optional.yaml")
    with pytest.raises(UserError, match=shipped[0]):  # a shipped id is unknown in another pack
        load_fault(shipped[0])
    monkeypatch.setenv("ADAT_FAULT_DIR", str(tmp_path / "missing"))
    with pytest.raises(UserError, match="ADAT_FAULT_DIR"):
        fault_ids()


def test_a_missing_fault_pack_is_one_line_before_any_flow(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "ADAT_FAULT_DIR": str(tmp_path / "missing")}
    for args in (["faults"], ["demo", "--evaluate", "--data-dir", str(tmp_path / "data")]):
        proc = subprocess.run([sys.executable, "-c", "from adat.cli.main import app; app()", *args], env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        assert len(lines) == 1 and "ADAT_FAULT_DIR" in lines[0], lines
    assert not (tmp_path / "data").exists()  # nothing written, no flow started
