"""Seeded faults: loading, validation, passages, and every activation probe shows the difference."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adat.errors import UserError
from adat_reference.agent import RULE_IDS, ReferenceAgent, fault_ids, list_faults, load_fault
from adat_reference.retail import default_policy_path

FAULTS = fault_ids()


def test_at_least_eight_faults_each_flipping_a_known_rule() -> None:
    assert len(FAULTS) >= 8
    assert list_faults() == FAULTS
    assert [load_fault(f).id for f in FAULTS] == FAULTS
    faults = [load_fault(f) for f in FAULTS]
    assert {fault.rule for fault in faults} <= set(RULE_IDS)
    # Several faults may flip the same rule, but never the same way: two faults on one rule must
    # differ in their override (params, outcome or sentences) or in their direction.
    flips = [(fault.rule, fault.direction, fault.override.model_dump_json()) for fault in faults]
    duplicates = sorted({(rule, direction) for rule, direction, override in flips
                         if flips.count((rule, direction, override)) > 1})
    assert not duplicates, f"faults with an identical flip of the same rule: {duplicates}"


@pytest.mark.parametrize("fault_id", FAULTS)
def test_passage_before_occurs_verbatim_in_the_policy(fault_id: str) -> None:
    fault = load_fault(fault_id)
    policy = default_policy_path().read_text(encoding="utf-8")
    assert fault.passage_before in policy
    assert fault.passage_after not in policy


@pytest.mark.parametrize("fault_id", FAULTS)
def test_probe_activates_the_fault(fault_id: str, converse) -> None:  # type: ignore[no-untyped-def]
    probe = load_fault(fault_id).probe.messages
    original, s0, replies0 = converse(probe)
    faulty, s1, replies1 = converse(probe, fault=fault_id)
    assert faulty.agent_id == f"reference-retail+{fault_id}"
    differs = replies0 != replies1 or (original.session_db(s0).canonical_hash()
                                       != faulty.session_db(s1).canonical_hash())
    assert differs, f"probe of {fault_id} gives the same replies and end state"
    assert original.fault_activations(s0) == []
    assert [rule for rule, _ in faulty.fault_activations(s1)] == [load_fault(fault_id).rule] * len(
        faulty.fault_activations(s1)) and faulty.fault_activations(s1)
    # The side log records the shipped rule's side, the same for both variants up to the divergence:
    # a flip toward 'allowed' activates on a request the shipped rule denies, and the other way round.
    first = faulty.fault_activations(s1)[0]
    shipped_side = "denied" if load_fault(fault_id).direction == "allowed" else "allowed"
    assert (first[0], shipped_side, first[1]) in faulty.side_log(s1)


def test_faulty_agent_states_its_flipped_parameters(finder, converse) -> None:  # type: ignore[no-untyped-def]
    """A parameter flip changes the words too: the faulty agent states the rule it now follows."""
    user, order = finder.user_order("delivered")
    messages = [f"My email is {user.email}.", f"Please cancel order {order.order_id}, I no longer need it."]
    original, _, replies0 = converse(messages)
    faulty, _, replies1 = converse(messages, fault="cancel_processed_orders")
    assert "whose status is 'pending';" in replies0[1]
    assert "whose status is 'pending' or 'processed';" in replies1[1]
    assert faulty.rules.rules["cancel_requires_pending"].params["statuses"] == ["pending"]  # shipped table untouched


def test_unknown_fault_is_a_user_error_listing_the_ids() -> None:
    with pytest.raises(UserError) as err:
        load_fault("no_such_fault")
    assert "no_such_fault" in str(err.value)
    assert FAULTS[0] in str(err.value)
    with pytest.raises(UserError):
        ReferenceAgent(fault="no_such_fault")


def _write_fault(folder: Path, **changes: object) -> str:
    doc = yaml.safe_load((Path(load_fault(FAULTS[0]).source)).read_text(encoding="utf-8"))
    doc.update(changes)
    (folder / f"{doc['id']}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    return str(doc["id"])


def test_fault_overriding_an_unknown_parameter_is_rejected(tmp_path: Path) -> None:
    rule = load_fault(FAULTS[0]).rule
    fault_id = _write_fault(tmp_path, override={"params": {"no_such_param": 1}})
    with pytest.raises(UserError, match="no_such_param"):
        ReferenceAgent(fault=fault_id, fault_dir=tmp_path)
    fault_id = _write_fault(tmp_path, rule="no_such_rule")
    with pytest.raises(UserError, match="no_such_rule"):
        ReferenceAgent(fault=fault_id, fault_dir=tmp_path)
    assert rule in RULE_IDS


def test_fault_file_with_a_missing_field_names_it(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("id: broken\ntitle: x\n", encoding="utf-8")
    with pytest.raises(UserError) as err:
        load_fault("broken", tmp_path)
    assert "broken.yaml" in str(err.value)
