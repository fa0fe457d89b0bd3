"""One turn of the reference agent: read the message, update the session, decide the reply.

Order of business per message: identity details; an answer to a pending confirmation; transfer
and scope; new requests (tasks); details for the current task; information questions; then the
current task moves on as far as it can and the reply states what happens or what is needed.
"""

from __future__ import annotations

from adat_reference.agent import info, silent
from adat_reference.agent.authentication import absorb_identity
from adat_reference.agent.changes import restrict_to_named
from adat_reference.agent.formatting import CAPABILITIES
from adat_reference.agent.items import mentioned_lines
from adat_reference.agent.nlu import INFO_INTENTS, Parsed, parse
from adat_reference.agent.rules import Predicate
from adat_reference.agent.session import Session, Task
from adat_reference.agent.tasks import advance, execute
from adat_reference.retail.database import Order

ITEM_KINDS = ("change_items", "modify_items", "exchange", "return")
ADDRESS_KINDS = ("modify_address", "user_address")
SOFT_INTENTS = ("modify_payment", "modify_address", "change_items")  # also how users give a task's details
CHANGE_OF = {"modify_address": "shipping address", "modify_payment": "payment method"}  # modify_scope's words


def respond(s: Session, text: str) -> str:
    """The agent's reply to one user message."""
    s.turn += 1
    s.denied_this_turn = set()
    if s.transferred:
        return "You have been transferred to a human agent; please hold on."
    p = parse(text)
    out = absorb_identity(s, p)
    task = s.current()
    if task is not None and task.confirming:
        reply = _answer(s, task, p, out)
        if reply is not None:
            return _join(out + [reply])
    reply = _scope_and_transfer(s, p)
    if reply is not None:
        return _join(out + [reply])
    out += _new_tasks(s, p)
    task = s.current()
    if task is not None:
        _fill(s, task, p)
    out += _information(s, p, task)
    if task is not None:
        out.append(advance(s, task))
        out += _next_task(s, task)
    if not out:
        out.append(_small_talk(s, p))
    elif (task is None and s.user_id is not None and p.has_identity() and len(out) == 1
          and not p.action_intents() and "thanks" not in p.intents):
        out.append("How can I help you today?")
    return _join(out)


def _answer(s: Session, task: Task, p: Parsed, out: list[str]) -> str | None:
    """Handle the reply to 'do you confirm?'; None when the message moves on to another request
    (the unconfirmed change is then dropped, which ``out`` states)."""
    assert task.write is not None
    tool, args, done = task.write
    updated = _fill(s, task, p, dry_run=True)
    other_requests = [i for i in p.action_intents() if not _continues(i, task, p)]
    asks = "?" in p.text or bool(set(p.intents) & set(INFO_INTENTS))
    if p.answer == "yes" and asks and not updated and not other_requests:
        return _join([_information_text(s, p, task), s.say("confirm_before_write", "ask")])  # answer first
    if p.answer == "yes" and not updated and not other_requests:
        if not s.check("confirm_before_write", lambda _p: True):
            return s.say("confirm_before_write", "unclear")  # a fault does not take the yes as consent
        task.write = None
        return _join([execute(s, task, tool, args, done)] + _next_task(s, task))
    if p.answer != "yes" and not updated:  # a silent fault takes it as consent, and says what the original says
        silent.write_unconsented(s, task, tool, args)
    if p.answer in ("no", "unclear"):
        s.check("confirm_before_write", lambda _p: False)
    if updated:
        task.write = None
        _fill(s, task, p)
        return _join([_information_text(s, p, task), advance(s, task)])
    if p.answer == "unclear":
        return s.say("confirm_before_write", "unclear")
    if p.answer == "no" or other_requests:
        task.write = None
        s.tasks.remove(task)
        declined = s.say("confirm_before_write", "denied")
        if other_requests:
            out.append(declined)
            return None
        return _join([declined] + _next_task(s, task))
    return _join([_information_text(s, p, task), s.say("confirm_before_write", "ask")])


def _continues(intent: str, task: Task, p: Parsed) -> bool:
    """Whether an intent in the message is the current task's own (or a detail of it)."""
    if p.order_ids and task.order_id and p.order_ids[0] != task.order_id:
        return False
    if intent == task.kind or (intent == "change_items" and task.kind in ITEM_KINDS):
        return True
    if intent == "exchange" and task.kind == "change_items":
        return True
    return intent in SOFT_INTENTS and bool(p.payments or p.address or p.numbers or p.default_address)


def _scope_and_transfer(s: Session, p: Parsed) -> str | None:
    """Refuse out-of-scope requests; transfer only when asked and the request is out of scope."""
    actions = p.action_intents()
    if actions:
        s.out_of_scope = False
    elif "out_of_scope" in p.intents:
        if s.holds("request_in_scope", False):  # a fault takes it on: the nearest it can do is product information
            return info.product_info(s, p)
        s.out_of_scope = True
        if "transfer" not in p.intents:
            return _join([s.say("request_in_scope", capabilities=CAPABILITIES),
                          "If you need help with it, I can transfer you to a human agent."])
    if "transfer" not in p.intents:
        return None
    cannot_handle = s.out_of_scope and not actions
    if s.check("transfer_scope", lambda _p: cannot_handle):
        s.call("transfer_to_human_agents", summary=f"The user asked for a human agent: {p.text[:300]}")
        s.transferred = True
        s.tasks.clear()
        return s.say("transfer_scope", "allowed")
    current = s.current()
    names = [Task(kind).describe() for kind in actions] or ([current.describe()] if current else [])
    why = (f"I can help you with {' and '.join(names)} myself." if names else
           "what would you like help with? I can " + CAPABILITIES + ".")
    out = [s.say("transfer_scope", why=why)]
    if actions:
        out += _after_refusal(s, p)
    elif current is not None:
        out.append(advance(s, current))
    return _join(out)


def _after_refusal(s: Session, p: Parsed) -> list[str]:
    """After refusing a transfer, go on with the in-scope request of the same message."""
    out = _new_tasks(s, p)
    task = s.current()
    if task is not None:
        _fill(s, task, p)
        out.append(advance(s, task))
    return out


def _new_tasks(s: Session, p: Parsed) -> list[str]:
    """Open a task per new request in the message; refuse changes a pending order cannot take."""
    out: list[str] = []
    current = s.current()
    created: list[Task] = []
    for intent in p.action_intents():
        if intent == "modify_other" or (intent in CHANGE_OF and not (current is not None
                                                                     and _continues(intent, current, p))):
            if not s.check("modify_scope", _in_scope(CHANGE_OF.get(intent, ""))):
                out.append(s.say("modify_scope"))
                continue
            if intent == "modify_other":  # a fault lets other changes through: the agent tries an item change
                intent = "change_items"
        if current is not None and _continues(intent, current, p):
            continue
        if not s.holds("request_in_scope", True):  # a fault refuses a request the policy lists
            out.append(s.say("request_in_scope", capabilities=CAPABILITIES))
            continue
        named = p.order_ids if len(p.action_intents()) == 1 else p.order_ids[len(created):len(created) + 1]
        orders: list[str | None] = list(named) or [None]
        for order_id in orders:
            created.append(Task(intent, order_id=order_id, texts=[p.text]))
    if created:
        for task in created[1:]:
            _fill(s, task, p, order=False)
        if current is not None and not current.confirming:
            s.tasks.remove(current)
        s.tasks[:0] = created[:1]
        s.tasks.extend(created[1:])
    return out


def _in_scope(change: str) -> Predicate:
    """modify_scope's predicate: the change is one a pending order may take ('' for any other)."""
    return lambda params: change in params["allowed_changes"]


def _fill(s: Session, task: Task, p: Parsed, *, dry_run: bool = False, order: bool = True) -> bool:
    """Put the message's details into the task; True when they change it (dry_run: only tell)."""
    changed = False
    asks_only = bool(p.intents) and not p.action_intents() and set(p.intents) & set(INFO_INTENTS)
    if (order and not asks_only and p.order_ids and p.order_ids[0] != task.order_id
            and task.kind not in ("user_address",)):
        changed = True
        if not dry_run:
            task.order_id, task.ok, task.pairs, task.items, task.payment_id = p.order_ids[0], set(), [], [], None
    if task.kind == "cancel" and p.reason and p.reason != task.reason:
        changed = True
        if not dry_run:
            task.reason = p.reason
            task.ok.discard("reason")
    if p.payments and task.kind not in ("cancel",) + ADDRESS_KINDS:
        changed = True
        if not dry_run:
            task.refs, task.split_payment, task.payment_id = list(p.payments), p.split_payment, None
    if task.kind in ADDRESS_KINDS and (p.address or p.default_address):
        new = dict(p.address)
        if not new and p.default_address and task.kind == "modify_address" and s.user is not None:
            new = s.user.address.model_dump()
        if new and any(task.address.get(k) != v for k, v in new.items()):
            changed = True
            if not dry_run:
                task.address = {**task.address, **new}
                task.ok.discard("address")
    if task.kind in ITEM_KINDS:
        order_obj = s.order(task.order_id)
        fresh = order_obj is not None and (any(n not in [o for o, _ in task.pairs] + task.items for n in p.numbers)
                                           or _names_new_line(task, order_obj, p.text))
        if fresh:
            changed = True
        if not dry_run:
            if order_obj is not None and restrict_to_named(task, order_obj, p.text):
                changed = True
                task.payment_id = task.payment_id if task.pairs or task.items else None
            elif p.text not in task.texts:
                task.texts.append(p.text)
    return changed


def _names_new_line(task: Task, order: Order, text: str) -> bool:
    known = {o for o, _ in task.pairs} | set(task.items)
    return any(line.item_id not in known for _, line in mentioned_lines(order, text))


def _information(s: Session, p: Parsed, task: Task | None) -> list[str]:
    text = _information_text(s, p, task)
    return [text] if text else []


def _information_text(s: Session, p: Parsed, task: Task | None) -> str:
    parts: list[str] = []
    if "order_info" in p.intents:
        parts.append(info.order_info(s, p, task.order_id if task else None))
    if "profile_info" in p.intents:
        parts.append(info.profile_info(s))
    if "product_info" in p.intents:
        parts.append(info.product_info(s, p))
    return _join(parts)


def _next_task(s: Session, finished: Task) -> list[str]:
    """After a task ends, start on the next queued request."""
    following = s.current()
    if finished in s.tasks or following is None:
        return []
    return [f"Next, about {following.describe()}:", advance(s, following)]


def _small_talk(s: Session, p: Parsed) -> str:
    if "thanks" in p.intents:
        return "You're welcome! Is there anything else I can help you with?"
    intro = f"Hello! I can {CAPABILITIES}."
    if s.user_id is None:
        return f"{intro} To get started, please give me your email address, or your first and last name with your zip code."
    if "greeting" in p.intents:
        return f"{intro} What would you like to do?"
    return f"I'm sorry, I didn't understand that. I can {CAPABILITIES}. What would you like to do?"


def _join(parts: list[str]) -> str:
    return " ".join(part for part in parts if part)
