"""A night's state: red on a newly failing test or a surviving seeded fault, one headline line."""

from __future__ import annotations

from adat.reporting.night import NightState, newly_failing, surviving_faults

DETECTION = [{"fault": "a", "activated": True, "detected": True}, {"fault": "b", "activated": True, "detected": False},
             {"fault": "c", "activated": False, "detected": False}]


def test_an_activated_undetected_fault_survives_a_not_activated_one_does_not() -> None:
    assert surviving_faults(DETECTION) == ["b"] and surviving_faults(None) == []
    state = NightState("n2", "n1", surviving_faults=surviving_faults(DETECTION))
    assert state.red and state.headline == "night n2: 1 seeded fault(s) survived (b)"


def test_newly_failing_is_pass_to_fail_on_the_tested_variant_only() -> None:
    rows = [{"test_id": "t1", "variant_key": "(run target)", "verdict_a": "pass", "verdict_b": "fail"},
            {"test_id": "t2", "variant_key": "(run target)", "verdict_a": "fail", "verdict_b": "fail"},
            {"test_id": "t3", "variant_key": "no_write_confirmation", "verdict_a": "pass", "verdict_b": "fail"},
            {"test_id": "t4", "variant_key": "(run target)", "verdict_a": None, "verdict_b": "fail"}]
    assert [r["test_id"] for r in newly_failing(rows)] == ["t1"]


def test_the_markdown_names_each_test_with_goal_and_rationale_on_one_table_row() -> None:
    row = {"test_id": "te-1", "kind": "plain", "goal": "Check that a | b\nholds", "rationale": "the agent refused"}
    state = NightState("n2", "n1", failing=[row], newly_failing=[row])
    text = state.markdown()
    assert state.red and len(state.headline.splitlines()) == 1 and "te-1" in state.headline
    assert "| `te-1` | plain | Check that a \\| b holds | the agent refused |" in text
    assert text.index("### Newly failing (pass → fail against `n1`): 1") < text.index("### Failing tonight: 1")
    green = NightState("n2", "n1", failing=[row])
    assert not green.red and green.headline == "night n2: no regression, no surviving fault; 1 failing test(s)"
