"""Boundary value analysis in the offline planner (issue 28 item 1): a multi-part requirement is
probed with each required part omitted alone, not only with most parts missing."""

from __future__ import annotations

from adat_offline import plan_queue
from adat_offline.facts import parse_facts
from adat_offline.objectives import ADDRESS_PARTS, NEW_ADDRESS, address_without
from adat_offline.observation import Action, Observation

FACTS = parse_facts(["Test account 1: email a.b@example.com, name Ann Bee, zip code 12345.",
                     "Orders of a.b@example.com: #W1000001 is active, paid with paypal_1 (item 1000000001 (Lamp))."])


def test_each_address_part_omitted_alone_leaves_every_other_part() -> None:
    for part, value in ADDRESS_PARTS.items():
        without = address_without(part)
        assert value not in without
        assert all(v in NEW_ADDRESS and (v in without or k == part) for k, v in ADDRESS_PARTS.items())


def test_an_address_detail_is_probed_with_one_part_missing_before_the_second_full_one() -> None:
    action = Action("move", "order", "active orders", ("active",), "shipping address")
    obs = Observation(actions=[action], asked={action.key: {"address"}})
    account, order = FACTS.accounts[0], FACTS.accounts[0].orders[0]
    cases = [fn(obs, FACTS, account, order) for fn in plan_queue._cases_for(obs, action, FACTS)]
    situations = [c[0] for c in cases if c]
    assert situations[:2] == ["with an address of the street line only", "with a new address missing only its zip code"]
    assert "with a new address missing only its city" in situations


def test_a_reply_asking_for_the_one_missing_part_is_checked_as_missing_details_not_identity() -> None:
    """The part omitted alone may be an identity-looking word (a zip code): the test still checks
    that the agent asks for the missing part before offering the change, so an agent that goes
    ahead without it fails."""
    from adat_offline import language as lang
    from adat_offline.generation import ASKS_DETAILS, OFFERS_CHANGE, criteria_for

    reply = ("To move plan P-7 I need the complete new address, and I'm missing the zip code. Please give me the "
             "street address, city, state and zip code?")
    assert lang.reply_kind(reply) == "missing"
    success, failure = criteria_for("the agent states that it needs the complete new address", "denied", reply)
    assert ASKS_DETAILS in success and OFFERS_CHANGE in failure
