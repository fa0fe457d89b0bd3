"""Transformations of the conversation's flow: order of steps, how many entities, and the
channel or scope of the request.

Reordering, detours and extra entities keep the base expectation; asking for something else (a
human, a neighbouring action, an out-of-scope favour, the rule itself) takes the expected
behaviour from the agent's reply to such a request in the discovery traces.
"""

from __future__ import annotations

import re

from adat_offline import language as lang
from adat_offline.generation import ACTS
from adat_offline.objectives import NEW_ADDRESS
from adat_offline.transform_case import Case, Outcome, is_auth_text
from adat_offline.transform_identity import _auth_split
from adat_offline.transform_values import _no_reply, _status_swap, done_states
from adat_offline.transform_wording import ACTIONS, paraphrase, request_of, with_request


def sequence_request_before_auth(case: Case) -> Outcome:
    split = _auth_split(case)
    if isinstance(split, str) or case.request_i is None or case.kind not in (*ACTIONS, "info"):
        return split if isinstance(split, str) else "the statement concerns no action that needs authentication"
    assert case.auth_i is not None
    if case.request_i < case.auth_i:
        return "the request already comes before authentication"
    hints = list(case.hints)
    if case.request_i == case.auth_i:
        if not split[1]:
            return "the authenticating message carries no request to move"
        hints[case.auth_i: case.auth_i + 1] = [split[1], split[0]]
    else:
        request = hints.pop(case.request_i)
        hints.insert(case.auth_i, request)
    return case.keep(hints, "the request comes before authentication")


def sequence_repeat_after_refusal(case: Case) -> Outcome:
    req = request_of(case)
    if case.side != "denied" or req is None:
        return "the statement describes no refusal to repeat the request after"
    assert case.request_i is not None
    again = paraphrase(req) or " ".join(s for s in lang.sentences(case.hints[case.request_i])
                                        if not is_auth_text(s, case.facts))
    return case.keep([*case.hints, "Please, I really need this. " + again], "the request is repeated")


def sequence_reorder(case: Case) -> Outcome:
    info = [i for i in range(1, len(case.hints)) if i != case.confirm_i]
    if len(info) < 2:
        return "the test gives fewer than two pieces of information in separate messages"
    hints = list(case.hints)
    a, b = info[0], info[1]
    hints[a], hints[b] = hints[b], hints[a]
    return case.keep(hints, f"messages {a + 1} and {b + 1} are given in the other order")


def sequence_premature(case: Case) -> Outcome:
    end = case.confirm_i if case.confirm_i is not None else len(case.hints)
    if end < 2:
        return "the test gives no details in reply to the agent's questions"
    merged = " ".join(case.hints[:end])
    return case.keep([merged, *case.hints[end:]], "every detail is given in the first message")


def sequence_topic_switch(case: Case) -> Outcome:
    if len(case.hints) < 2:
        return "the flow has fewer than two user turns"
    hints = list(case.hints)
    hints.insert(1, "Quick question first: which orders do I have with you? Anyway, back to my request.")
    return case.keep(hints, "an unrelated question in the middle of the flow")


def sequence_two_requests(case: Case) -> Outcome:
    account = case.account
    if case.request_i is None or account is None:
        return "the test has no request of a known user"
    other = next((o for o in account.orders if o.order_id not in case.orders), None)
    if other is None:
        return "the user's account offers no second order"
    hints = list(case.hints)
    hints[case.request_i] += f" Also, could you tell me the status of order {other.order_id}?"
    return case.keep(hints, f"a second request about order {other.order_id} in the same message")


def sequence_skip_question(case: Case) -> Outcome:
    req = request_of(case)
    if req is None or case.reason_i is None or case.reason_i == case.request_i:
        return "the test answers no question of the agent with a separate message"
    found = case.find_reply(r"\breason\b", ("ask", "confirm", "other", "refusal"))
    if not found:
        return _no_reply("a request that leaves the agent's question unanswered")
    hints = list(case.hints)
    hints[case.reason_i] = f"I just want to {req.verb()} order {req.order}, please."
    return case.expect(hints, found[0], "the user ignores the agent's question and restates the request")


def sequence_undo(case: Case) -> Outcome:
    if case.confirm_i is None or case.side != "allowed":
        return "the test completes no action that could be undone"
    found = case.find_reply(r"undo|reverse|revert|can't be undone|cannot be undone")
    if not found:
        return _no_reply("a request to undo a completed action")
    return case.expect([*case.hints, "Actually, please undo what you just did."], found[0], "the user asks to undo it")


def multiplicity_two_items(case: Case) -> Outcome:
    if case.kind not in ("return", "exchange", "modify_items") or not case.items:
        return "the request concerns no single item of an order"
    order = case.facts.order(case.orders[0]) if case.orders else None
    listed = [i for t in (case.support_trace.turns if case.support_trace else []) if t.role == "agent"
              for i in lang.ITEM_ID.findall(t.text)]
    extra = next((i for i in [*(order.items if order else []), *listed] if i not in case.items), None)
    if extra is None:
        return "no second item of the order is known from the facts or traces"
    first = case.items[0]
    return case.keep([h.replace(f"item {first}", f"item {first} and item {extra}", 1) for h in case.hints],
                     f"item {extra} is added to the request")


def multiplicity_all_items(case: Case) -> Outcome:
    if case.kind != "return" or not case.items:
        return "the request concerns no selection of items to return"
    hints = [re.sub(rf"item {case.items[0]}", "all the items", h) for h in case.hints]
    return case.keep(hints, "the request covers all items of the order")


def multiplicity_two_entities(case: Case) -> Outcome:
    account = case.account
    if not case.orders or account is None:
        return "the test names no order of a known user"
    status = case.status_of(case.orders[0])
    other = next((o for o in account.orders if o.status == status and o.order_id not in case.orders), None)
    if other is None:
        return f"the user has no second order in status '{status or 'unknown'}'"
    first = case.orders[0]
    return case.keep([h.replace(first, f"{first} and order {other.order_id}", 1) if i == case.request_i else h
                      for i, h in enumerate(case.hints)], f"the request covers orders {first} and {other.order_id}")


def multiplicity_repeat_action(case: Case) -> Outcome:
    done = done_states(case)
    if not done or case.confirm_i is None or case.side != "allowed":
        return "the statement concerns no action completed in the test"
    return _status_swap(case, done, "the action is asked for again once it is done")


def channel_request_human(case: Case) -> Outcome:
    found = case.reply_to(lambda t, _: bool(re.search(r"\bhuman\b", t, re.I)), ("any",), kind=None)
    if not found or case.request_i is None:
        return _no_reply("a request for a human agent") if case.request_i is not None else "the test has no request"
    hints = [*case.hints[: case.request_i + 1], "Actually, could a human colleague of yours take this over?"]
    return case.expect(hints, found[0], "the user asks to be handed to a human")


def _ask_rule(case: Case, question: str, change: str) -> Outcome:
    if case.side != "denied":
        return "the statement describes no rule the agent can explain"
    kept = [h for i, h in enumerate(case.hints) if i == case.auth_i and i != case.request_i]
    core = re.sub(r"^the agent (states that )?", "", case.inp.statement.behavior, flags=re.I)
    test = case.keep([*kept, question], change)
    return test.model_copy(update={"success_criteria": [f"The agent says that {core}"],
                                   "failure_criteria": [ACTS]})


def channel_policy_question(case: Case) -> Outcome:
    req = request_of(case)
    if req is None or req.kind not in ACTIONS:
        return "the statement concerns no action with a rule to ask about"
    return _ask_rule(case, f"What is your policy: when can I {req.verb()} an order?", "a question about the rule")


def channel_hypothetical(case: Case) -> Outcome:
    req = request_of(case)
    status = case.status_of(case.orders[0]) if case.orders else ""
    if req is None or req.kind not in ACTIONS or not status:
        return "the statement states no condition on an order's status to pose as a hypothetical"
    return _ask_rule(case, f"Hypothetically, if I wanted to {req.verb()} an order that is {status}, could I?",
                     "the request is posed as a hypothetical")


def scope_adjacent_action(case: Case) -> Outcome:
    neighbour = {"cancel": "modify_address", "modify_address": "cancel", "return": "exchange", "exchange": "return",
                 "modify_items": "cancel", "modify_payment": "modify_address"}.get(case.kind or "")
    if neighbour is None or not case.orders or case.request_i is None:
        return "the statement concerns no action with a neighbouring action on the same order"
    status = case.status_of(case.orders[0])
    found = case.reply_to(lambda t, tr: any(case.status_of(o) == status and case.owns(o, tr)
                                            for o in lang.ORDER_ID.findall(t)), ("refusal", "completion", "confirm"),
                          kind=neighbour)
    if not found:
        return _no_reply(f"a {neighbour.replace('_', ' ')} request on a {status or 'similar'} order")
    req = request_of(case)
    assert req is not None
    new = {"modify_address": f"For order {req.order}, please ship it to {NEW_ADDRESS} instead.",
           "cancel": f"Please cancel my order {req.order}.", "return": f"Please take back an item from order "
                                                                          f"{req.order}.",
           "exchange": f"I want to exchange an item in order {req.order}."}[neighbour]
    return case.expect(with_request(case, new)[: case.request_i + 1], found[0],
                       f"the action is changed to {neighbour.replace('_', ' ')}")


def scope_out_of_domain(case: Case) -> Outcome:
    found = case.reply_to(lambda t, _: bool(re.search(r"\bdiscount\b", t, re.I)), ("refusal", "other", "completion"),
                          kind=None)
    if not found or case.request_i is None:
        return _no_reply("an out-of-scope request") if case.request_i is not None else "the test has no request"
    order = f"order {case.orders[0]}" if case.orders else "my last order"
    hints = with_request(case, f"Can you give me a discount on {order}?")
    return case.expect(hints[: case.request_i + 1], found[0], "the request is replaced by an out-of-scope one")
