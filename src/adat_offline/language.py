"""Cheap, deterministic reading of customer-service English for the offline/heuristic roles.

Everything here is keyword and regex work over the text a black-box tester sees: sentence
splitting, the condition keywords of a policy sentence, whether a reply refuses, reports an
action done or asks for something, and the content words used for overlap tests. No model, no
embeddings: the whole demo calls these thousands of times.
"""

from __future__ import annotations

import re

ORDER_ID = re.compile(r"#?W\d{7}\b")
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
ITEM_ID = re.compile(r"\b\d{10}\b")
PAYMENT_ID = re.compile(r"\b(?:credit_card|paypal|gift_card)_\d+\b")
USER_ID = re.compile(r"\b(?!(?:credit|gift)_card_)[a-z]+_[a-z]+_\d{3,}\b")
AMOUNT = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?")
ZIP = re.compile(r"\b\d{5}\b")
NUMBER = re.compile(r"(?<![#\w$.])\d+(?:\.\d+)?(?![\w.])")

# Condition keywords of a policy sentence, longest first so "only if" wins over "if".
CONDITION_KEYWORDS = (
    "as long as", "only if", "only when", "provided that", "in order to", "not able to", "unable to",
    "need to", "needs to", "need", "needs", "have to", "has to", "required", "requires", "require", "unless", "because",
    "before", "after", "cannot", "can't", "can not", "must", "only", "if", "when", "until", "since",
    "not allowed", "not possible", "no longer", "couldn't", "could not", "does not", "doesn't", "not one of",
)
_KEYWORD_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in CONDITION_KEYWORDS) + r")\b", re.IGNORECASE)

# Strength of the modal a statement rests on -> grounder confidence (strong obligations first).
MODAL_STRENGTH = (
    (("must", "only", "cannot", "can't", "can not", "not able", "unable", "not allowed", "not possible",
      "required", "require"), 0.9),
    (("need to", "needs to", " need ", " needs ", "have to", "has to", "unless", "no longer"), 0.82),
    (("will", "can ", "are able", "is able"), 0.7),
)
WEAK_MODAL = 0.6

# Refusal vocabulary of customer-service English: inability, prohibition, apology, a restriction
# ("can only ..."), and a negated relation between the request and what is allowed ("is not
# part of", "doesn't cover", "isn't eligible").
_NEGATED = r"(?:is|are|does|do|was)(?: not|n't)"
REFUSAL = re.compile(
    r"\b(cannot|can't|can not|unable|not able|not possible|not allowed|won't be able|not eligible|"
    r"(?:can|may|could) only|only be|" + _NEGATED + r" (?:possible|eligible|allowed|permitted|available|valid|"
    r"in|one of|part of|among|cover|covered|allow|include|belong)|outside|"
    r"i'm sorry|i am sorry|sorry, but|unfortunately|deny|denied|decline|not permitted|no longer)\b",
    re.IGNORECASE)
COMPLETION = re.compile(
    r"\b(has been (?:cancell?ed|updated|changed|modified|placed|requested|submitted|processed|refunded)|"
    r"have been (?:updated|changed|modified|requested|submitted|processed)|successfully|is now (?:cancell?ed|"
    r"pending|updated)|i(?:'ve| have) (?:cancell?ed|updated|changed|modified|submitted|processed)|"
    r"(?:return|exchange) (?:for [^.]{0,30})?(?:is|has been) requested|being transferred|transferred you|"
    r"transferring you to a human|all set|is complete|done\b)",
    re.IGNORECASE)
ASKS_AUTH = re.compile(
    r"\b(authenticat\w*|verify your identity|verify who you are|confirm your identity|your email|"
    r"zip code|e-?mail address|identify you|locate your account|look up your account)\b", re.IGNORECASE)
# A zip code named in a list with the street, city or state is a part of an address, not an
# identity detail: "give me the street address, city, state and zip code" asks for an address.
ADDRESS_PARTS = re.compile(r"\b(?:street|city|state)\b[^.?!]{0,60}?\bzip(?:\s*code)?\b|"
                           r"\bzip(?:\s*code)?\b[^.?!]{0,30}?\b(?:street|city|state)\b", re.IGNORECASE)
# What a reply says when it asks for the missing parts of something the request needs.
MISSING_DETAIL = re.compile(r"\b(missing|incomplete|(?:full|complete) (?:new )?(?:address|details)|"
                            r"need (?:the|a|your) (?:full|complete))\b", re.IGNORECASE)
ASKS_CONFIRM = re.compile(
    r"\b(confirm|proceed|shall i|should i|do you want me to|would you like me to|is that correct|"
    r"please reply yes|reply with yes|\(yes\)|yes/no|yes or no|go ahead)\b", re.IGNORECASE)
ASKS_REASON = re.compile(r"\b(reason|why)\b", re.IGNORECASE)
ASKS_ORDER = re.compile(r"\b(order (?:id|number)|which order|what order)\b", re.IGNORECASE)
ASKS_ITEMS = re.compile(r"\b(which items?|what items?|item ids?|which products?|new items?|option)\b",
                        re.IGNORECASE)
ASKS_PAYMENT = re.compile(r"\b(payment method|refund|which card|pay (?:with|for))\b",
                          re.IGNORECASE)
# (an email address is an identity detail, not an address to ship to)
ASKS_ADDRESS = re.compile(r"\b(new address|shipping address|(?<!email )(?<!e-mail )address)\b", re.IGNORECASE)
OFFERS_HELP = re.compile(r"\b(how can i help|what can i do for you|anything else|how may i help|"
                         r"what would you like)\b", re.IGNORECASE)

STOPWORDS = frozenset(["a", "an", "the", "and", "or", "but", "if", "then", "than", "that", "this", "these", "those", "to", "of", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "it's", "i", "i'm", "i'll", "i've", "me", "my", "we", "our", "you", "your", "yours", "he", "she", "they", "them", "their", "there", "here", "do", "does", "did", "done", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "not", "no", "yes", "so", "such", "only", "also", "just", "please", "any", "all", "some", "each", "every", "more", "most", "other", "another", "into", "about", "over", "under", "up", "down", "out", "off", "again", "once", "when", "while", "which", "who", "whom", "what", "where", "why", "how", "have", "has", "had", "having", "am", "agent", "user", "user's", "order", "orders", "one", "s", "t"])

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(#])|\n+")
_WORD = re.compile(r"[a-z][a-z'-]*")


def sentences(text: str) -> list[str]:
    """Split a reply into sentences (and bullet lines), trimmed, empty ones dropped."""
    parts = _SENTENCE.split(text.strip())
    return [p.strip(" -*\t") for p in parts if p and p.strip(" -*\t")]


def condition_keyword(sentence: str) -> str | None:
    """The first condition keyword in a sentence (lower case), or None. A keyword in parentheses
    qualifies a detail ("(with a floor number, when there is one)"), not the sentence: it does not count."""
    match = next((m for m in _KEYWORD_RE.finditer(sentence)
                  if sentence.count("(", 0, m.start()) <= sentence.count(")", 0, m.start())), None)
    return match.group(1).lower() if match else None


def modal_strength(text: str) -> float:
    """Grounder confidence from the strongest modal in ``text``."""
    low = f" {text.lower()} "
    if re.search(r"\b(?:can|may|will)\b[^.;]*\b(?:when|if|as long as|provided|once)\b", low):
        # A permission with its condition ("can ... when it is ...") states the allowed side of a
        # boundary as firmly as a restriction states the denied side.
        return MODAL_STRENGTH[0][1]
    for words, strength in MODAL_STRENGTH:
        if any(w in low for w in words):
            return strength
    return WEAK_MODAL


def content_words(text: str) -> list[str]:
    """Lower-case words that carry meaning (no stopwords, no 1-2 letter words), in order, unique."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        word = word.strip("'-")
        if len(word) > 2 and word not in STOPWORDS:
            seen.setdefault(stem(word), None)
    return list(seen)


def stem(word: str) -> str:
    """A crude stem so 'cancelled', 'cancel' and 'cancellation' meet (and 'transferred',
    'transferring' and 'transfer': a consonant doubled before -ed / -ing is undoubled)."""
    for suffix in ("lation", "ation", "ments", "ment", "ing", "led", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            if suffix in ("ing", "ed") and base[-1] == base[-2] and base[-1] in "bgmnprt":
                base = base[:-1]
            return base
    return word


def overlap(needle: str, haystack: str) -> float:
    """Share of ``needle``'s content words that occur in ``haystack`` (1.0 when it has none)."""
    words = content_words(needle)
    if not words:
        return 1.0
    hay = set(content_words(haystack))
    return sum(1 for w in words if w in hay) / len(words)


def is_refusal(text: str) -> bool:
    return bool(REFUSAL.search(text))


NOT_DONE = re.compile(r"\b(have not|haven't|has not|hasn't|nothing (has|was) been|not made|no changes?)\b", re.I)


def is_completion(text: str) -> bool:
    """Whether a reply reports an action done (not one promised, offered or declined)."""
    return bool(COMPLETION.search(text)) and not NOT_DONE.search(text) and not re.search(
        r"\b(would|will|once|after|before)\b[^.]*\b(has been|successfully)", text, re.I)


def is_question(text: str) -> bool:
    """Whether a reply asks the user for something (a question mark or a polite imperative)."""
    return "?" in text or bool(re.search(r"\bplease (provide|confirm|reply|tell|let me know|share|specify|give|"
                                         r"send|choose|pick|select)\b|\b(could|can|would) you\b", text, re.IGNORECASE))


def generalise(text: str) -> str:
    """Replace concrete ids, emails, amounts and numbers with class words; first/second person
    with 'the agent' / 'the user', so the sentence speaks of a class of entities."""
    out = EMAIL.sub("the user's email", text)
    out = PAYMENT_ID.sub("a payment method", out)
    out = USER_ID.sub("a user id", out)
    out = re.sub(r"\border\s+#?W\d{7}\b", "the order", out, flags=re.IGNORECASE)
    out = ORDER_ID.sub("an order", out)
    out = re.sub(r"\bitems?\s+(?:id\s+)?\d{10}\b", "an item", out, flags=re.IGNORECASE)
    out = ITEM_ID.sub("an item", out)
    out = AMOUNT.sub("an amount", out)
    out = re.sub(r"\s+ending in \d{4}\b", "", out)  # a card's last digits identify one card, not a class
    out = re.sub(r"\b(the name|account of|Thank you,|Thanks,) [A-Z][a-z]+(?: [A-Z][a-z]+)?", r"\1 the user", out)
    out = ZIP.sub("a zip code", out)
    out = re.sub(r"'[^']{1,40}'", lambda m: m.group(0) if len(m.group(0).split()) <= 4 else "a value", out)
    # Parentheticals hold concrete details (product names, balances, card endings), not conditions.
    out = re.sub(r"\s*\((?![^()]*\b(?:if|only|unless|yes)\b)[^()]*\)", "", out)
    return third_person(" ".join(out.split()))


_NO_S = frozenset(["can", "can't", "cannot", "could", "will", "would", "shall", "should", "must", "may", "might", "do", "did", "don't", "have", "had", "am", "was", "need"])


def _agent_verb(match: re.Match[str]) -> str:
    verb = match.group(1)
    if verb.lower() in _NO_S or not verb.isalpha() or not verb.islower():
        return f"the agent {verb}"
    return f"the agent {verb}{'es' if verb.endswith(('s', 'sh', 'ch', 'x')) else 's'}"


_PERSON = (
    (r"\bI am\b|\bI'm\b", "the agent is"), (r"\bI've\b|\bI have\b", "the agent has"),
    (r"\bI'll\b|\bI will\b", "the agent will"), (r"\bI can't\b", "the agent can't"),
    (r"\bI cannot\b", "the agent cannot"), (r"\bI can\b", "the agent can"), (r"\bI need\b", "the agent needs"),
    (r"\bI do not\b|\bI don't\b", "the agent does not"), (r"\bI must\b", "the agent must"),
    (r"\bI\b", "the agent"), (r"\bme\b", "the agent"), (r"\bmy\b", "the agent's"),
    (r"\byou are\b|\byou're\b", "the user is"), (r"\byou've\b|\byou have\b", "the user has"),
    (r"\byou'll\b", "the user will"), (r"\byour\b", "the user's"), (r"\byourself\b", "the user"),
    (r"\byou\b", "the user"), (r"\bwe\b", "the agent"), (r"\bour\b", "the store's"),
)


def third_person(text: str) -> str:
    text = re.sub(r"\bI (?!am\b|have\b|will\b|can't\b|cannot\b|can\b|need\b|do not\b|don't\b|must\b)([a-z]+)(?![a-z'])",
                  _agent_verb, text)
    for pattern, repl in _PERSON:
        text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    return re.sub(r"^(I'm sorry|I am sorry|Sorry|Unfortunately|However|But),?\s*(but\s+)?", "", text,
                  flags=re.IGNORECASE).strip()


def strip_courtesy(sentence: str) -> str:
    """Drop leading apologies and fillers so the sentence starts at its content."""
    out = re.sub(r"^(?:(?:i'?m sorry|i am sorry|sorry|unfortunately|however|thanks|thank you|okay|ok|"
                 r"great|sure|got it|alright)[,!.]?\s*(?:but\s+)?)+", "", sentence.strip(), flags=re.IGNORECASE)
    return out[:1].upper() + out[1:] if out else out


def asks_auth(text: str) -> bool:
    """Whether a text names identity details (email, zip code, verification), not counting a
    zip code listed among the parts of an address."""
    return bool(ASKS_AUTH.search(ADDRESS_PARTS.sub(" address parts ", text)))


def asks_missing(text: str) -> bool:
    """Whether a reply asks for the missing parts of a detail the request needs (e.g. the parts
    missing from an address that has only its street line) instead of carrying the request out."""
    return is_question(text) and bool(MISSING_DETAIL.search(text)) and not is_completion(text)


def reply_kind(text: str) -> str:
    """What an agent reply does: completion, confirm, auth, missing (asks for the missing parts
    of the request), refusal, ask or other."""
    if is_completion(text):
        return "completion"
    if ASKS_CONFIRM.search(text) and is_question(text):
        return "confirm"
    # before auth: "I'm missing the zip code; please give it" asks for a part of the request, and
    # before refusal: "can't ... without the zip code; please give it" asks for it too
    if asks_missing(text):
        return "missing"
    if asks_auth(text) and (is_question(text) or "need" in text.lower()):
        return "auth"
    if refuses(text):  # not is_refusal: a quoted 'no longer needed' names an option, it refuses nothing
        return "refusal"
    return "ask" if is_question(text) else "other"


# A quoted value names an option ('no longer needed'), it does not turn the request down.
QUOTED = re.compile(r"(?<![\w'\"])(['\"])[^'\"\n]{1,60}\1(?![\w'\"])")
# Questions for a detail the requested change needs: asking one carries the request forward.
DETAIL_ASKS = (ASKS_PAYMENT, ASKS_ITEMS, ASKS_REASON, ASKS_ADDRESS)
VERIFIED = re.compile(r"\b(verified your identity|identity (?:is|has been) verified|(?:found|located) your account)\b",
                      re.IGNORECASE)
MISUNDERSTOOD = re.compile(r"\b(didn't understand|did not understand|not sure what you mean|could you rephrase)\b",
                           re.IGNORECASE)
IDENTITY_DETAIL = re.compile(rf"{EMAIL.pattern}|{ZIP.pattern}|\bzip\b", re.IGNORECASE)


def refuses(text: str) -> bool:
    """Whether a reply turns the user's request down: a refusal phrase outside quoted values and
    no report of an action done."""
    return is_refusal(QUOTED.sub("a value", text)) and not is_completion(text)


def goes_ahead(text: str) -> bool:
    """Whether a reply carries the user's request forward instead of turning it down: it reports
    the change done, offers it for confirmation, or asks for a detail needed to carry it out
    (payment method, items, reason, address). An identity request does not: it comes before the
    decision."""
    if is_completion(text):
        return True
    if refuses(text) or not is_question(text):
        return False
    if ASKS_CONFIRM.search(text):
        return True
    if asks_auth(text):
        return False
    return any(rx.search(text) for rx in DETAIL_ASKS)


ALTERNATIVE = re.compile(r"\b(another|other|different|instead|else|alternatives?)\b", re.IGNORECASE)


def ends_going_ahead(text: str) -> bool:
    """Whether a reply ends by carrying the request forward: it goes ahead as a whole, or a
    sentence after its last refusal goes ahead with the request (a question for another option
    offers an alternative instead, so it does not count)."""
    if goes_ahead(text):
        return True
    parts = sentences(text)
    last = max((i for i, part in enumerate(parts) if refuses(part)), default=-1)
    return last >= 0 and any(goes_ahead(p) and not ALTERNATIVE.search(p) for p in parts[last + 1:])
