"""The pre-move check of issue 9 (tests/support/pre_move.py), shared by the evaluate flow test and
benchmarks/demo_time.py: a fault the suite never activates changes the denominator, nothing else."""

from tests.support.pre_move import move_mismatch


def _old(detected: list[str], faults: int) -> dict:
    return {"faults": faults, "faults_detected": len(detected), "mutation_score": len(detected) / faults,
            "detected_faults": detected}


def _new(killed: list[str], variants: int, not_activated: list[str]) -> dict:
    activated = variants - len(not_activated)
    return {"variants": variants, "activated": activated, "killed_variants": killed,
            "not_activated": not_activated, "mutation_score": len(killed) / activated}


def test_every_fault_activated_gives_equal_scores():
    assert move_mismatch(_old(["a", "b"], 3), _new(["a", "b"], 3, [])) is None


def test_a_fault_never_activated_changes_only_the_denominator():
    assert move_mismatch(_old(["a", "b"], 4), _new(["a", "b"], 4, ["d"])) is None


def test_a_different_set_of_caught_faults_is_a_mismatch():
    assert "killed ['a']" in move_mismatch(_old(["a", "b"], 3), _new(["a"], 3, []))


def test_a_detected_fault_that_was_never_activated_is_a_mismatch():
    assert "not activated: ['b']" in move_mismatch(_old(["a", "b"], 3), _new(["a", "b"], 3, ["b"]))


def test_a_score_off_its_definition_is_a_mismatch():
    new = _new(["a"], 3, ["c"]) | {"mutation_score": 1 / 3}
    assert "expected" in move_mismatch(_old(["a"], 3), new)
