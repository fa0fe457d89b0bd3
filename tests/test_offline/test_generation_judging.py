"""Plain tests, the direct baseline, the judge and the selector stand-in."""

from __future__ import annotations

from adat.contracts.adat2_roles import (
    DirectInput,
    JudgeInput,
    SelectorCandidate,
    SelectorInput,
    TestView,
    TraceView,
    TurnView,
)
from adat_offline import generation, judging, selection
from tests.test_offline.conftest import Extracted, find


def _turns(*pairs: tuple[str, str]) -> list[TurnView]:
    return [TurnView(role=r, text=t) for r, t in pairs]  # type: ignore[arg-type]


def test_plain_test_replays_the_supporting_conversation(extracted: list[Extracted], tester_facts: list[str]) -> None:
    item = find(extracted, "cancel", "reason", "can't cancel the order for that reason")
    users = [t.text for t in item.trace.turns[: item.raw.supporting_turn] if t.role == "user"]
    assert item.plain.step_hints == users and len(users) == 3
    assert item.plain.success_criteria[0].startswith(generation.SAYS)
    assert generation.REFUSES in item.plain.success_criteria
    assert generation.GOES_AHEAD in item.plain.failure_criteria
    assert any(c.startswith(generation.OPPOSITE) for c in item.plain.failure_criteria)


def test_criteria_follow_what_the_supporting_reply_does(extracted: list[Extracted]) -> None:
    done = find(extracted, "confirms", "now cancelled")
    assert generation.ACTS in done.plain.success_criteria and generation.REFUSES in done.plain.failure_criteria
    confirm = find(extracted, "exchanged only once")
    assert generation.ASKS_CONFIRMATION in confirm.plain.success_criteria
    auth = find(extracted, "verify the user's identity")
    assert generation.ASKS_IDENTITY in auth.plain.success_criteria
    assert generation.side_of(auth.view.behavior, auth.reply) == "denied"
    assert generation.side_of(done.view.behavior, done.reply) == "allowed"


def test_direct_baseline_writes_up_to_max_and_reports_exhaustion(traces: list[TraceView],
                                                                 tester_facts: list[str]) -> None:
    first = generation.generate_direct(DirectInput(discovery_traces=traces[:6], existing_tests=[],
                                                   tester_facts=tester_facts, turn_limit=10, max_tests=3))
    assert len(first.tests) == 3 and not first.exhausted
    existing = [TestView(test_id=f"d{i}", kind="direct", goal=t.goal, step_hints=t.step_hints,
                         success_criteria=t.success_criteria, failure_criteria=t.failure_criteria)
                for i, t in enumerate(first.tests)]
    rest = generation.generate_direct(DirectInput(discovery_traces=traces[:6], existing_tests=existing,
                                                  tester_facts=tester_facts, turn_limit=10, max_tests=100))
    assert rest.exhausted and rest.tests
    assert not {tuple(t.step_hints) + (t.success_criteria[0],) for t in rest.tests} & \
        {tuple(t.step_hints) + (t.success_criteria[0],) for t in first.tests}
    last = generation.generate_direct(DirectInput(discovery_traces=traces[:6], existing_tests=existing + [
        TestView(test_id=f"r{i}", kind="direct", goal=t.goal, step_hints=t.step_hints,
                 success_criteria=t.success_criteria, failure_criteria=t.failure_criteria)
        for i, t in enumerate(rest.tests)], tester_facts=tester_facts, turn_limit=10, max_tests=5))
    assert last.tests == [] and last.exhausted


def _judge(success: list[str], failure: list[str], *replies: str, ended_by: str = "hints_done") -> str:
    turns = _turns(*[p for r in replies for p in (("user", "..."), ("agent", r))])
    return judging.judge(JudgeInput(goal="g", success_criteria=success, failure_criteria=failure, turns=turns,
                                    ended_by=ended_by)).verdict


REFUSE = "I can only cancel orders whose status is 'pending'; order #W1 is 'delivered', so it can't be cancelled."
SAYS_RULE = f"{generation.SAYS} the agent can only cancel orders whose status is 'pending'"


def test_judge_passes_fails_and_stays_inconclusive() -> None:
    success, failure = [SAYS_RULE, generation.REFUSES], [generation.ACTS, f"{generation.OPPOSITE} "
                                                         "the agent can only cancel orders whose status is 'pending'"]
    assert _judge(success, failure, REFUSE) == "pass"
    assert _judge(success, failure, "Done: order #W1 is now cancelled.") == "fail"
    assert _judge(success, failure, "Could you tell me your email?") == "inconclusive"
    assert _judge(success, failure) == "inconclusive"


def test_judge_reads_negation_and_the_last_decision() -> None:
    opposite = "I can cancel orders whose status is 'pending'; order #W1 is 'delivered', so it can be cancelled."
    assert _judge([SAYS_RULE.replace("can only", "can")], [], opposite) == "pass"
    assert _judge([SAYS_RULE], [], opposite) == "fail"
    out = judging.judge(JudgeInput(goal="g", success_criteria=[generation.ACTS], failure_criteria=[],
                                   turns=_turns(("user", "a"), ("agent", "Done: the return is requested."),
                                                ("user", "b"), ("agent", REFUSE)), ended_by="hints_done"))
    assert out.verdict == "fail" and out.criteria[0].holds is False
    asked = _judge([generation.ASKS_CONFIRMATION], [generation.ACTS], "Shall I go ahead? Please reply 'yes'.")
    assert asked == "pass"


def test_selector_prefers_the_least_used_instruction() -> None:
    candidates = [SelectorCandidate(statement_id="a", statement="s", instruction_id=i, instruction=i)
                  for i in ("wording-paraphrase", "social-urgency", "identity-no-auth")]
    out = selection.select(SelectorInput(attempt_no=4, candidates=candidates, history=[
        "a x wording-paraphrase: test pass", "b x social-urgency: not applicable", "c x wording-paraphrase: pass"]))
    assert out.instruction_id == "identity-no-auth"
    again = selection.select(SelectorInput(attempt_no=4, candidates=candidates[:2], history=[
        "a x wording-paraphrase: test pass", "b x social-urgency: not applicable"]))
    assert again.instruction_id == "wording-paraphrase"


def test_a_reply_to_a_declined_confirmation_puts_the_plain_test_on_the_denied_side() -> None:
    """A no to the confirmation leaves the change unmade; "nothing has been changed" names
    neither side in words, and a test on no side is one the auditor cannot place."""
    asked = _turns(("user", "Please cancel order #W1234567, I ordered it by mistake."),
                   ("agent", "I will cancel order #W1234567. Do you confirm (yes/no)?"),
                   ("user", "No, please don't do that."),
                   ("agent", "All right, nothing has been changed."))
    assert generation.side_after_confirmation(asked) == "denied"
    approved = [*asked[:2], TurnView(role="user", text="Yes."), asked[3]]
    assert generation.side_after_confirmation(approved) is None
    told = _turns(("user", "Please cancel order #W1234567."), ("agent", "The order is now cancelled."),
                  ("user", "Thanks."), ("agent", "All right, nothing else to do."))
    assert generation.side_after_confirmation(told) is None
    assert generation.side_after_confirmation(asked[:2]) is None  # no answer to the question yet
