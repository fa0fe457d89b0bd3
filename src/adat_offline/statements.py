"""Extractor and grounder of the offline/heuristic provider.

Extractor: each agent reply is split into sentences; a sentence that states a condition (a
condition keyword: only, cannot, must, unless, if, because, before, need to, ...) or reports an
action done becomes a statement, phrased for a class of entities (ids, emails, amounts replaced
by class words; 'I' / 'you' by 'the agent' / 'the user'). Clause keywords (if, unless, because,
before, ...) split the sentence into condition and behaviour; a modal sentence (cannot, must,
only, ...) takes its condition from the user's request it answers.

Grounder: a statement is grounded when most of its behaviour's content words occur in the
supporting reply; its confidence comes from the strength of its modal.
"""

from __future__ import annotations

import re

from adat.contracts.adat2_roles import (
    ExtractedStatement,
    ExtractorInput,
    ExtractorOutput,
    GrounderInput,
    GrounderOutput,
    GroundingItem,
    TurnView,
)
from adat_offline import language as lang

CLAUSE_KEYWORDS = ("only if", "only when", "as long as", "provided that", "unless", "because", "since",
                   "before", "after", "until", "if", "when")
# Mid-sentence these introduce a condition; "before", "after", "when" ... there mostly tell time.
MID_CLAUSE = ("only if", "only when", "as long as", "provided that", "unless", "because", "if")
ANSWERS = re.compile(r"^\W*(please use|the reason\b|yes|no\b|my (email|name|user id)|the new address)", re.I)
# "order #W1234567 is 'processed', so ...": the state a reply names for an order (not "is now ...",
# which reports a change done).
ORDER_STATUS = re.compile(r"order\s+#?W\d{7}\s+is\s+(?!now\b|already\b)'?([a-z]+(?: [a-z]+)?(?: \([a-z ]+\))?)'?"
                          r"(?=[,;.!?]|\s+(?:so|and|but|which)\b)", re.I)
REQUESTS = (  # user wording -> (request key, the class of request it belongs to)
    (r"human|real person|representative", "human", "a user asks to be handed to a human"),
    (r"new order|\bbuy\b|purchase", "new_order", "a user asks to place a new order"),
    (r"\badd\b|one more of item", "add_item", "a user asks to add an item to an existing order"),
    (r"express|faster (?:shipping|delivery)|arrives? sooner|expedite", "faster_delivery",
     "a user asks for faster delivery of an order"),
    (r"default address", "default_address", "a user asks to change their default address"),
    (r"shipping address|(?<!email )\baddress\b", "modify_address", "a user asks to ship an order to another address"),
    (r"\bcancel", "cancel", "a user asks to cancel an order"),
    (r"exchange", "exchange", "a user asks to exchange an item of an order"),
    (r"\breturn", "return", "a user asks to return an item of an order"),
    (r"payment method|pay with|switch .* to (?:credit|paypal|gift)", "modify_payment",
     "a user asks to switch an order's payment method"),
    (r"change (?:an |the )?item|modify|different option", "modify_items", "a user asks to swap an item of an order for another option"),
    (r"discount|refund|price|coupon|store credit", "refund", "a user asks for a discount or refund"),
    (r"status|which items|what items", "info", "a user asks about an order"),
)


def request_key(text: str) -> str | None:
    """The kind of request a user message makes ('cancel', 'return', ...), or None."""
    return next((key for pat, key, _ in REQUESTS if re.search(pat, text, re.IGNORECASE)), None)


GROUNDED_AT = 0.6


def request_phrase(turns: list[TurnView], upto: int) -> str:
    """The class of the latest user request before turn ``upto`` (e.g. 'a user asks to cancel an
    order'), with the order status the agent named earlier when it named one."""
    phrase = ""
    for turn in reversed(turns[:upto]):
        if turn.role == "user" and not ANSWERS.search(turn.text):
            phrase = next((p for pat, _, p in REQUESTS if re.search(pat, turn.text, re.IGNORECASE)), "")
            if phrase:
                break
    if not phrase:
        return "a user makes a request"
    status = next((m.group(1).lower() for t in turns[:upto + 1] if t.role == "agent"
                   for m in ORDER_STATUS.finditer(t.text)), "")
    if status and "order" in phrase:
        phrase = phrase.replace("an order", f"an order that is {status}")
    return phrase


def answer_of(user_text: str) -> str:
    """'confirms' / 'declines' when a user message answers a confirmation question, else ''."""
    if re.match(r"^\W*(yes|yeah|yep|sure|ok(ay)?|go ahead|please go ahead|confirm)", user_text, re.I):
        return "confirms"
    if re.match(r"^\W*(no|nope|don't|do not)\b", user_text, re.I):
        return "declines"
    return ""


def split_clause(sentence: str) -> tuple[str, str] | None:
    """(condition, behaviour) of a sentence with a clause keyword, or None."""
    low = sentence.lower()
    for kw in CLAUSE_KEYWORDS:
        # A keyword in parentheses qualifies a detail ("(with apartment or suite, if any)"); it
        # introduces no condition of the sentence.
        match = next((m for m in re.finditer(rf"\b{re.escape(kw)}\b", low) if not _in_parentheses(low, m.start())),
                     None)
        if not match:
            continue
        if match.start() <= 2:  # "If X, Y" / "Before X, Y"
            head, _, tail = sentence[match.end():].partition(",")
            if tail.strip():
                return f"{kw} {head.strip()}", tail.strip()
            continue
        if kw not in MID_CLAUSE:
            continue
        behaviour = sentence[: match.start()].rstrip(" ,;")
        condition = sentence[match.start():].strip()
        if len(behaviour.split()) >= 2 and len(condition.split()) >= 2:
            return condition, behaviour
    return None


def _in_parentheses(text: str, at: int) -> bool:
    return text.count("(", 0, at) > text.count(")", 0, at)


def _clean(text: str) -> str:
    return text.strip().rstrip(".!?;: ").strip()


def _agentify(behaviour: str) -> str:
    """Behaviour phrased with 'the agent' as its subject."""
    behaviour = _clean(behaviour)
    low = behaviour.lower()
    if low.startswith("the agent"):
        return "the agent" + behaviour[len("the agent"):]
    if low.startswith("please "):
        return "the agent asks the user to " + behaviour[7:]
    return "the agent states that " + behaviour[:1].lower() + behaviour[1:]


def statement_for(sentence: str, request: str, answer: str = "") -> ExtractedStatement | None:
    """A statement for one sentence of an agent reply, or None when it states no condition.

    ``answer`` is the user's message the reply answers when it was a yes/no to a confirmation
    question ("confirms" / "declines"): a report of an action done or not done is a statement
    about that answer."""
    core = lang.generalise(lang.strip_courtesy(sentence))
    if len(core.split()) < 4:
        return None
    keyword = lang.condition_keyword(core)
    done = lang.is_completion(sentence) and not lang.is_question(sentence)
    declined = answer == "declines" and bool(lang.NOT_DONE.search(sentence))
    if declined:
        return ExtractedStatement(text=f"When {request} and declines at the confirmation, {_agentify(core)}.",
                                  condition=f"{request} and declines at the confirmation",
                                  behavior=_agentify(core), supporting_turn=0)
    if keyword is None and not done:
        return None
    split = split_clause(core) if keyword else None
    if split is not None:
        condition, behaviour = _clean(split[0]), _agentify(split[1])
        if condition.split()[0].lower() in ("if", "when", "unless", "before", "after", "until", "once"):
            text = f"{condition[:1].upper()}{condition[1:]}, {behaviour}."
        else:
            text = f"When {request}, {behaviour} {condition}."
            condition = f"{request}, {condition}"
    else:
        condition = f"{request} and confirms" if done and answer != "declines" else request
        behaviour = _agentify(core)
        text = f"When {condition}, {behaviour}."
    return ExtractedStatement(text=" ".join(text.split()), condition=condition, behavior=behaviour,
                              supporting_turn=0)


GOES_AHEAD = "the agent goes ahead with the request and asks:"


def identity_given(user_text: str) -> str:
    """How the user message identifies the user (' and identifies with ...'), or ''."""
    if lang.EMAIL.search(user_text):
        return " and identifies with their email"
    if lang.ZIP.search(user_text) and re.search(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", user_text):
        return " and identifies with their name and zip code"
    return ""


OBJECTIVE_STATUS = re.compile(r"\(status: ([a-z][a-z ]*(?:\([a-z ]+\))?)\)", re.I)


def going_ahead(reply: str, request: str, user_text: str, objective: str = "") -> ExtractedStatement | None:
    """A reply that carries the user's request forward by asking for a detail needed to carry it
    out is the decision the agent took on the request (the allowed side of what it checked): a
    statement of its own, with the identity the user just gave and the state of the order the
    session's objective names (the tester's own note of what it tried) as part of its condition."""
    status = OBJECTIVE_STATUS.search(objective)
    if status and "an order" in request and "an order that is" not in request:
        request = request.replace("an order", f"an order that is {status.group(1).lower()}", 1)
    if request == "a user makes a request" or lang.reply_kind(reply) != "ask" or not lang.goes_ahead(reply):
        return None
    question = next((s for s in lang.sentences(reply) if lang.is_question(s)
                     and any(rx.search(s) for rx in lang.DETAIL_ASKS)), None)
    if question is None:
        return None
    asked = lang.generalise(lang.strip_courtesy(question)).rstrip("?.! ")
    condition = f"{request}{identity_given(user_text)}"
    behaviour = f"{GOES_AHEAD} {asked[:1].lower()}{asked[1:]}"
    return ExtractedStatement(text=f"When {condition}, {behaviour}?", condition=condition, behavior=behaviour,
                              supporting_turn=0)


def extract(inp: ExtractorInput) -> ExtractorOutput:
    """Statements from every agent reply of one trace, in turn order, without duplicates."""
    turns = inp.trace.turns
    out: list[ExtractedStatement] = []
    seen: set[str] = set()
    for index, turn in enumerate(turns):
        if turn.role != "agent":
            continue
        request = request_phrase(turns, index)
        answer = answer_of(turns[index - 1].text) if index > 0 and turns[index - 1].role == "user" else ""
        before = turns[index - 1].text if index > 0 and turns[index - 1].role == "user" else ""
        ahead = going_ahead(turn.text, request, before, inp.trace.objective)
        for statement in [*(statement_for(s, request, answer) for s in lang.sentences(turn.text)), ahead]:
            if statement is None or statement.text.lower() in seen:
                continue
            seen.add(statement.text.lower())
            out.append(statement.model_copy(update={"supporting_turn": index}))
    return ExtractorOutput(statements=out)


def ground(inp: GrounderInput) -> GrounderOutput:
    """Grounded when the behaviour's key words occur in the reply; confidence from the modal."""
    items: list[GroundingItem] = []
    for cand in inp.statements:
        reply = lang.generalise(cand.supporting_reply)
        behaviour = re.sub(r"^the agent (states that |asks the user to |goes ahead with the request and asks:\s*)?",
                           "", cand.behavior.strip(), flags=re.I)
        share = lang.overlap(behaviour, reply)
        grounded = share >= GROUNDED_AT and bool(cand.supporting_reply.strip())
        strength = lang.modal_strength(cand.text)
        confidence = round(strength * (0.85 + 0.15 * share), 4) if grounded else round(0.2 * share, 4)
        reason = (f"{share:.0%} of the behaviour's key words occur in the supporting reply; modal strength "
                  f"{strength:.2f}")
        items.append(GroundingItem(index=cand.index, grounded=grounded, confidence=confidence, reason=reason))
    return GrounderOutput(items=items)
