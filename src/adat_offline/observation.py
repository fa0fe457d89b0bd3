"""What the offline planner has learned from the conversation so far.

A black-box tester knows only what the agent said and what the tester facts give. This module
reads the earlier discovery traces for:

* the **actions** the agent says it can do ("I can pause or resume active plans, refund items of
  shipped orders, ..."): a verb, what it acts on and the entity states the agent named with it;
* the **details** the agent asked for while carrying an action out (a reason, a payment method,
  items, an address, a confirmation) and the quoted **options** it offered for them;
* the **conditions** it stated (sentences with a condition keyword), and the item ids it listed
  as available options.

Nothing here names an agent, a rule or a sentence of one: the patterns are the generic shapes of
customer-service English (see :mod:`adat_offline.language`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adat.contracts.adat2_roles import TraceView
from adat_offline import language as lang

# The leading words of a sentence that lists what the agent can do.
CAN_DO = re.compile(r"\b(?:I|we)\s+(?:can|am able to|are able to|could)\s+(?:also\s+)?(?:help(?:\s+you)?\s+"
                    r"(?:with\s+|to\s+)?)?(?P<rest>[^.?!]+)", re.IGNORECASE)
_NOT_VERB = frozenset(["your", "our", "my", "the", "a", "an", "any", "all", "their", "its", "this", "that",
                       "these", "those", "only", "not", "also", "you", "it", "them", "help", "be", "by", "with", "to",
                       "for", "from", "in", "on", "at", "of", "first", "last", "anything", "nothing"])
CHANGE_VERBS = frozenset(["modify", "change", "update", "edit", "amend", "alter"])
#: detail kind -> how an agent asks for it (generic questions of a customer-service agent)
DETAIL_ASKS = {
    "reason": lang.ASKS_REASON,
    "payment": lang.ASKS_PAYMENT,
    "item": lang.ASKS_ITEMS,
    "address": lang.ASKS_ADDRESS,
    "confirm": lang.ASKS_CONFIRM,
    "option": re.compile(r"\b(?:which|what|other|another|to which)\s+options?\b", re.IGNORECASE),
}
QUOTED = re.compile(r"(?<![\w])'([^'\n]{2,40})'(?![\w])|\"([^\"\n]{2,40})\"")
_AVAILABLE = re.compile(r"\b(?:available|options?|in stock)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Action:
    """One thing the agent says it can do."""

    verb: str  # as the agent said it: "cancel", "return", "update"
    target: str  # order | item (of an order) | account (a thing of the user's own) | question
    phrase: str  # what it acts on, in the agent's words: "pending orders", "your default address"
    states: tuple[str, ...] = ()  # entity states (from the tester facts) the agent named with it
    attribute: str = ""  # for a change verb on an order: the attribute changed (items, ...)

    @property
    def key(self) -> str:
        """The action as the planner's objectives name it (see :func:`key_of`)."""
        return f"{self.verb} {self.attribute}".strip()


def key_of(objective: str) -> str:
    """The action key of an objective the planner wrote: its verb, and the attribute it changes."""
    words = objective.split()
    attribute = re.search(r"\bthe (items|payment method|shipping address) of order\b", objective)
    return f"{words[0].lower() if words else ''} {attribute.group(1) if attribute else ''}".strip()


@dataclass
class Observation:
    actions: list[Action] = field(default_factory=list)
    asked: dict[str, set[str]] = field(default_factory=dict)  # action verb -> detail kinds asked for
    options: dict[str, list[str]] = field(default_factory=dict)  # action verb -> quoted options offered
    conditions: list[str] = field(default_factory=list)  # condition sentences, in order heard
    available_items: list[str] = field(default_factory=list)  # item ids listed as available options
    # action verb -> the payment method ids each of its payment questions offered
    payment_offers: dict[str, list[set[str]]] = field(default_factory=dict)
    # (a reply listing available options, lower case; the item ids it listed)
    listings: list[tuple[str, list[str]]] = field(default_factory=list)
    heard: str = ""  # every agent reply, lower case (to ask whether a word was ever said)

    def asked_for(self, verb: str, detail: str) -> bool:
        return detail in self.asked.get(verb, set())


def parse_actions(text: str, states: tuple[str, ...]) -> list[Action]:
    """The actions a reply says the agent can do, with the entity states named for each."""
    found: list[Action] = []
    for match in CAN_DO.finditer(text):
        phrases = _phrases(match.group("rest"))
        if len(phrases) < 2 or lang.ORDER_ID.search(match.group("rest")):
            continue  # a list of what the agent can do, not one case ("I can only cancel ... #W...")
        for part in phrases:
            words = part.split()
            verbs = [words[0].lower()]
            i = 1
            while i + 1 < len(words) and words[i].lower() in ("or", "and") and words[i + 1].lower() not in _NOT_VERB:
                verbs.append(words[i + 1].lower())
                i += 2
            rest = " ".join(words[i:])
            low = rest.lower()
            named = tuple(s for s in states if re.search(rf"\b{re.escape(s)}\b", low))
            target = ("question" if verbs[0] in ("answer", "tell", "explain", "look") else
                      "item" if re.search(r"\bitems?\b", low) and "order" in low else
                      "order" if re.search(r"\border", low) else "account")
            for verb in verbs:
                if verb.isalpha() and len(verb) > 2 and verb not in _NOT_VERB and not verb.endswith("ing"):
                    found.append(Action(verb=verb, target=target, phrase=rest, states=named))
    return found


def _phrases(rest: str) -> list[str]:
    """Split 'a, b, and c' into verb phrases; a part that starts with no verb ('your profile')
    continues the one before it."""
    rest = re.split(r"[;:]", rest)[0]
    if not rest.split() or rest.split()[0].lower() in _NOT_VERB:
        return []
    parts = [p.strip() for p in re.split(r",\s*(?:and\s+|or\s+)?", rest) if p.strip()]
    out: list[str] = []
    for part in parts:
        first = part.split()[0].lower()
        if out and (first in _NOT_VERB or not first.isalpha()):
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def observe(traces: list[TraceView], states: tuple[str, ...], verb_of: dict[str, str]) -> Observation:
    """What ``traces`` taught; ``verb_of`` maps a trace id to the action key (:func:`key_of`) its
    session pursued."""
    obs = Observation()
    seen: set[tuple[str, str]] = set()
    replies: list[str] = []
    for trace in traces:
        verb = verb_of.get(trace.trace_id, "")
        for turn in trace.turns:
            if turn.role != "agent":
                continue
            replies.append(turn.text.lower())
            for action in parse_actions(turn.text, states):
                if (action.verb, action.target) not in seen:
                    seen.add((action.verb, action.target))
                    obs.actions.append(action)
            questions = " ".join(q for q in lang.sentences(turn.text) if lang.is_question(q) and not lang.asks_auth(q))
            if verb and questions:
                asked = obs.asked.setdefault(verb, set())
                for detail, rx in DETAIL_ASKS.items():
                    if rx.search(questions):
                        asked.add(detail)
                if lang.ASKS_PAYMENT.search(questions):
                    obs.payment_offers.setdefault(verb, []).append(set(lang.PAYMENT_ID.findall(turn.text)))
                quoted = [a or b for a, b in QUOTED.findall(turn.text)]
                if quoted and lang.ASKS_REASON.search(turn.text):
                    known = obs.options.setdefault(verb, [])
                    known.extend(q for q in quoted if q not in known)
            for sentence in lang.sentences(turn.text):
                if lang.condition_keyword(sentence) and sentence not in obs.conditions:
                    obs.conditions.append(sentence)
            at = _AVAILABLE.search(turn.text)
            if at:
                # the ids after "available" when the reply says it (the item asked about comes before)
                listed = re.search(r"\b(?:available|in stock)\b", turn.text, re.IGNORECASE) or at
                obs.listings.append((turn.text.lower(), lang.ITEM_ID.findall(turn.text[listed.end():])))
                for item in lang.ITEM_ID.findall(turn.text[at.end():]):
                    if item not in obs.available_items:
                        obs.available_items.append(item)
    obs.heard = "\n".join(replies)
    return obs


#: a next step an agent offers the user ("I can transfer you to ...", "Would you like me to ...?")
OFFERED_STEP = re.compile(r"\b(?:I|we) (?:can|could) (?P<can>\w+ you\b[^.?!]*)|\bwould you like me to (?P<like>[^.?!]+)",
                          re.IGNORECASE)


def offered_step(reply: str) -> str:
    """The user's acceptance of a next step the reply offers after turning the request down
    ("Yes, please connect me with the billing team."), or '' when it offers none."""
    if not lang.refuses(reply):
        return ""
    match = OFFERED_STEP.search(reply)
    if match is None:
        return ""
    step = re.sub(r"\byou\b", "me", (match.group("can") or match.group("like")).strip())
    step = re.sub(r"\s+if (?:me|you) (?:wish|like|want|need)\b.*$", "", step)
    return f"Yes, please {step[:1].lower()}{step[1:]}."
