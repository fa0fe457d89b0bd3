"""Free-text understanding for the reference agent: intents, reasons, confirmations, entities.

Deterministic keyword and pattern rules, written for the messages testers and simulated users
actually send ("I'd like to return the headphones from #W1234567", "yes please", "actually no").
:func:`parse` returns everything one message states; the dialogue decides what applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adat_reference.agent import entities
from adat_reference.agent.entities import PaymentRef

ACCEPTED_REASONS = {
    "no longer needed": re.compile(
        r"no longer need|(?:don'?t|do not|won'?t|dont) (?:really )?need|not needed|no need for|no longer want"
        r"|(?:don'?t|do not) want (?:it|them|this|that)|not need (?:it|them) anymore|needn'?t", re.I),
    "ordered by mistake": re.compile(
        r"\bmistake|mistaken|accident|in error|(?:didn'?t|did not) mean to|wrong(?:ly)? order", re.I),
}
OTHER_REASON = re.compile(
    r"\b(?:because|since|as|reason(?: is|:)|due to)\s+(?:of\s+)?(?:that\s+)?(?P<why>[^.!?;]{3,80})"
    r"|(?P<phrase>found (?:it |a )?(?:cheaper|better price|better deal)[^.!?;]*|(?:it'?s |it is )?too expensive"
    r"|changed my mind|takes? too long|shipping is too slow|(?:it )?(?:arrives?|arriving) too late)", re.I)

YES = re.compile(r"\b(?:yes|yeah|yep|yup|sure|confirm(?:ed)?|correct|proceed|go ahead|please do|do it|absolutely"
                 r"|affirmative|that'?s (?:right|correct|fine)|sounds good|ok(?:ay)?|of course)\b", re.I)
NO = re.compile(r"\b(?:no(?! longer)|nope|nah|not yet|don'?t|do not|wait|hold on|stop|never ?mind"
                r"|changed my mind|keep it)\b", re.I)

# Intent patterns, matched on the lower-cased text; the first match position orders the intents.
INTENT_PATTERNS: dict[str, re.Pattern[str]] = {
    "transfer": re.compile(r"\b(?:human|real person|representative|supervisor|manager|live agent|operator"
                           r"|talk to (?:a|some)one|speak (?:to|with) (?:a|some)one)\b"),
    "cancel": re.compile(r"\bcancel(?:l?ing|l?ed|lation)?\b"),
    "return": re.compile(r"\breturn(?:ing|ed|s)?\b|\bsend (?:it|them|this|these) back\b"),
    "exchange": re.compile(r"\bexchang(?:e|ing|ed)\b|\bswap(?:ping)?\b|\breplace(?:ment)?\b"),
    "modify_other": re.compile(r"\b(?:add|include)\b[^.?!]{0,40}\bto (?:my|the|this|that) (?:pending )?order\b"
                               r"|\b(?:remove|delete|drop|take out|take off)\b[^.?!]{0,40}\b(?:from|in|of|off) "
                               r"(?:my|the|this|that) (?:pending )?order\b|\b(?:remove|delete) (?:an?|one|the) item\b"
                               r"|\b(?:expedite|express shipping|faster shipping|shipping speed|overnight)\b"),
    "user_address": re.compile(r"\b(?:default|profile|account|home|billing) address\b"
                               r"|\baddress (?:on (?:file|my (?:account|profile))|in my (?:account|profile))\b"),
    "modify_address": re.compile(r"\b(?:shipping|delivery) address\b|\baddress (?:of|for|on) (?:my|the|this|that|order)\b"
                                 r"|\b(?:ship|deliver|send) (?:it|them|the order|my order|this|that)? ?to\b"
                                 r"|\bchange (?:the |my )?address\b|\bnew address\b|\bwrong address\b"),
    "modify_payment": re.compile(r"\b(?:change|switch|update|modify|use)\b[^.?!]{0,30}\bpayment\b"
                                 r"|\bpay (?:for (?:it|the order|that|this) )?(?:with|using|by) (?!the same)"
                                 r"|\bcharge (?:it|the order|that) to\b"),
    "change_items": re.compile(r"\b(?:modify|change|switch|upgrade|downgrade|update)\b"),
    "order_info": re.compile(r"\b(?:status|where is|where's|track(?:ing)?|details? (?:of|for|about|on)|what(?:'s| is) in"
                             r"|what did i (?:order|buy)|list (?:my|all|of my) orders|my orders|(?:which|what) orders|order history"
                             r"|when will|arrive|shipped)\b"),
    "profile_info": re.compile(r"\b(?:what|which) payment methods\b|\bmy (?:profile|account details|payment methods)\b"
                               r"|\bwhat(?:'s| is) my (?:address|email|default address)\b"),
    "product_info": re.compile(r"\b(?:in stock|availab(?:le|ility)|what options|which options|how many options"
                               r"|options (?:are|do)|variants?|how much (?:is|does|are|do)|price of|what colou?rs"
                               r"|what sizes|do you (?:have|sell|carry)|tell me about)\b"),
    "out_of_scope": re.compile(r"\b(?:buy|purchase|place (?:a|an|another|new) order|new order|reorder"
                               r"|(?:change|update) my (?:email|name|phone)|delete my account|close my account"
                               r"|discount|coupon|promo code|price match|compensation|complain(?:t)?|refund the shipping)\b"),
    "greeting": re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|greetings)\b"),
    "thanks": re.compile(r"\b(?:thanks|thank you|that'?s all|that is all|bye|goodbye)\b"),
}
ACTION_INTENTS = ("cancel", "return", "exchange", "modify_other", "user_address", "modify_address",
                  "modify_payment", "change_items")
INFO_INTENTS = ("order_info", "profile_info", "product_info")
ALL_ITEMS = re.compile(r"\b(?:all (?:the |of the |my )?(?:items|things|of them|of it)|everything|every item|whole order"
                       r"|entire order|all items|both (?:items|of them))\b", re.I)
EXCEPT = re.compile(r"\b(?:except|but not|other than|apart from|besides|but the|but keep)\b(?P<rest>[^.!?;]*)", re.I)
DEFAULT_ADDRESS = re.compile(r"\b(?:my )?(?:default|profile|home) address\b|\baddress on (?:file|my profile)\b", re.I)
SPLIT_PAYMENT = re.compile(r"\bsplit\b|\bhalf (?:on|with|to)\b|\bpart(?:ly)? (?:on|with)\b|\bboth (?:cards|methods)\b", re.I)


@dataclass
class Parsed:
    """Everything one user message states."""

    text: str
    intents: list[str] = field(default_factory=list)
    order_ids: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    user_ids: list[str] = field(default_factory=list)
    name: tuple[str, str] | None = None
    zip: str | None = None
    payments: list[PaymentRef] = field(default_factory=list)
    reason: str | None = None
    address: dict[str, str] = field(default_factory=dict)
    default_address: bool = False
    answer: str | None = None  # 'yes' | 'no' | 'unclear' | None
    all_items: bool = False
    except_text: str = ""
    split_payment: bool = False

    def has_identity(self) -> bool:
        return bool(self.emails or self.user_ids or (self.name and self.zip))

    def action_intents(self) -> list[str]:
        return [i for i in self.intents if i in ACTION_INTENTS]


def find_intents(text: str) -> list[str]:
    """Intents in order of first mention, with overlapping ones resolved."""
    low = text.lower().replace("’", "'")
    found = sorted((m.start(), name) for name, pat in INTENT_PATTERNS.items() if (m := pat.search(low)))
    names = [name for _, name in found]
    specific = {"user_address", "modify_address", "modify_payment", "cancel", "return", "exchange", "modify_other"}
    if "change_items" in names and specific & set(names):
        names.remove("change_items")  # 'change my address' is an address change, not an item change
    if "modify_address" in names and "user_address" in names and not re.search(r"\b(?:order|shipping)\b", low):
        names.remove("modify_address")
    if "product_info" in names and set(names) & set(ACTION_INTENTS):
        names.remove("product_info")  # 'if it is available' qualifies the action
    if "out_of_scope" in names and set(names) & set(ACTION_INTENTS + INFO_INTENTS):
        names.remove("out_of_scope")  # 'cancel it, I will buy it again later' is a cancellation
    return names


def cancel_reason(text: str) -> str | None:
    """An accepted reason ('no longer needed' / 'ordered by mistake'), another stated reason, or None."""
    for reason, pattern in ACCEPTED_REASONS.items():
        if pattern.search(text):
            return reason
    m = OTHER_REASON.search(text)
    if m:
        why = (m.group("why") or m.group("phrase") or "").strip(" ,")
        return why.lower() or None
    return None


def confirmation(text: str) -> str | None:
    """'yes', 'no', 'unclear' (both or a hedge) or None (no answer given)."""
    stripped = text
    for pattern in ACCEPTED_REASONS.values():
        stripped = pattern.sub(" ", stripped)
    yes, no = YES.search(stripped), NO.search(stripped)
    if yes and not no:
        return "yes"
    if no and not yes:
        return "no"
    return "unclear" if yes and no else None


def parse(text: str) -> Parsed:
    """Parse one user message."""
    except_match = EXCEPT.search(text)
    return Parsed(
        text=text,
        intents=find_intents(text),
        order_ids=entities.order_ids(text),
        numbers=entities.ten_digit_ids(text),
        emails=entities.emails(text),
        user_ids=entities.user_ids(text),
        name=entities.person_name(text),
        zip=entities.zip_code(text),
        payments=entities.payment_refs(text),
        reason=cancel_reason(text),
        address=entities.address(text),
        default_address=bool(DEFAULT_ADDRESS.search(text)),
        answer=confirmation(text),
        all_items=bool(ALL_ITEMS.search(text)),
        except_text=except_match.group("rest") if except_match else "",
        split_payment=bool(SPLIT_PAYMENT.search(text)),
    )
