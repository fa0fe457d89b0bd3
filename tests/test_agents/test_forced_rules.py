"""Every rule can be flipped both ways: forced to either outcome, the agent never crashes and acts on it.

For each of the rules × {allowed, denied} the agent runs both scripted cases of the rule
(tests/test_agents/rule_cases.py), so the rule is reached on the side the policy allows and on the
side it denies; the side log's decisions show the forced side at every evaluation of the rule.
"""

from __future__ import annotations

import pytest

from adat_reference.agent import RULE_IDS, ReferenceAgent
from adat_reference.agent.rules import Outcome
from adat_reference.retail import RetailDB
from tests.test_agents.rule_cases import CASES
from tests.test_agents.scenarios import Finder

SIDES: tuple[Outcome, ...] = ("allowed", "denied")


@pytest.mark.parametrize("case", SIDES)
@pytest.mark.parametrize("forced", SIDES)
@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_forced_rule_is_reached_and_followed(rule_id: str, forced: Outcome, case: str, finder: Finder,
                                             retail_db: RetailDB) -> None:
    messages = CASES[rule_id][case](finder)
    agent = ReferenceAgent(retail_db, force=(rule_id, forced))
    session = agent.reset()
    replies = [agent.invoke(session, m).text for m in messages]  # a crash raises TargetError
    transcript = "\n".join(f"U: {m}\nA: {r}" for m, r in zip(messages, replies, strict=True))
    taken = [side for rule, side, _ in agent.decisions(session) if rule == rule_id]
    assert taken, f"{rule_id} never reached\n{transcript}"
    assert set(taken) == {forced}, f"{rule_id} decided {taken}\n{transcript}"
    shipped = [side for rule, side, _ in agent.side_log(session) if rule == rule_id]
    flipped = [rule for rule, _ in agent.fault_activations(session)]
    assert flipped == [rule_id] * sum(side != forced for side in shipped)
    if flipped:  # the decision drives what the agent does: the flip shows in a reply or in the database
        original = ReferenceAgent(retail_db)
        s0 = original.reset()
        replies0 = [original.invoke(s0, m).text for m in messages]
        assert replies0 != replies or (original.session_db(s0).canonical_hash()
                                       != agent.session_db(session).canonical_hash()), (
            f"forcing {rule_id} to {forced} changed nothing\n{transcript}")
