"""Entity extraction from free text: ids, emails, names + zip, payment references and addresses.

Pure functions over the message text; nothing here looks at the database. The dialogue resolves
what the entities refer to (which payment method, which order line) against the session's data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ORDER_ID = re.compile(r"(?<![\w])#?\s?W\s?(\d{7})\b", re.IGNORECASE)
TEN_DIGITS = re.compile(r"(?<![\d#])(\d{10})(?!\d)")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
PAYMENT_ID = re.compile(r"\b((?:credit_card|gift_card|paypal)_\d+)\b")
USER_ID = re.compile(r"\b([a-z]+(?:_[a-z]+)+_\d{3,})\b")
ZIP_LABELLED = re.compile(r"\b(?:zip|zipcode|zip code|postal code|postcode)\D{0,12}(\d{5})\b", re.IGNORECASE)
FIVE_DIGITS = re.compile(r"(?<![\d#W])(\d{5})(?![\d])")
NAME_INTRO = re.compile(
    r"\b(?:i am|i'm|im|my name is|my name's|name is|this is|it's|it is|name:|called)\s+"
    r"([A-Za-z][A-Za-z'-]+)\s+([A-Za-z][A-Za-z'-]+)", re.IGNORECASE)
NAME_BEFORE_ZIP = re.compile(r"\b([A-Z][a-z'-]+)\s+([A-Z][a-z'-]+)\b[,.]?\s*(?:from|in|at|with|zip|\(|\d{5})")
NOT_A_NAME = frozenset({"a", "an", "the", "looking", "trying", "calling", "wondering", "interested",
    "going", "having", "hoping", "writing", "reaching", "sorry", "so", "very", "also", "just", "still",
    "here", "not", "really", "glad", "happy", "back", "ready", "about", "unable", "afraid", "sure",
    "fine", "ok", "okay", "living", "from", "in", "at", "with", "my", "your", "zip", "code", "and",
    "or", "but", "please", "hi", "hello", "hey", "thanks", "thank", "yes", "no", "order", "account",
    "email", "user"})

STREET = re.compile(
    r"\b(\d{1,6}\s+(?:[A-Za-z0-9.'-]+\s+){0,4}?(?:street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd"
    r"|way|court|ct|place|pl|circle|cir|terrace|parkway|pkwy|highway|hwy|trail|square|sq|loop|alley)\b\.?)",
    re.IGNORECASE)
SECOND_LINE = re.compile(r"\b((?:apt|apartment|suite|ste|unit|floor|fl|room|rm|building|bldg)\.?\s*#?\s*\w+|#\s?\d+\w*)",
                         re.IGNORECASE)
COUNTRY = re.compile(r"^(?:usa|u\.s\.a\.?|us|u\.s\.?|united states(?: of america)?|america)$", re.IGNORECASE)
STATE_CODE = re.compile(r"^[A-Za-z]{2}$")

CARD_BRANDS = {"visa": "visa", "mastercard": "mastercard", "master card": "mastercard", "amex": "amex",
               "american express": "amex", "discover": "discover"}
LAST_FOUR = re.compile(r"(?:ending|ends|end)\s*(?:in|with)?\s*(\d{4})\b|last\s*(?:four|4)(?:\s*digits)?"
                       r"\s*(?:are|is|:)?\s*(\d{4})\b", re.IGNORECASE)
PAYMENT_WORDS = re.compile(
    r"(?P<original>original (?:payment(?: method)?|card|method|form of payment)|same (?:payment )?(?:method|card)"
    r"|(?:card|method|account) i (?:used|paid with)|how i paid)"
    r"|(?P<paypal>pay\s?pal)|(?P<gift_card>gift\s?card|\bgc\b)"
    r"|(?P<credit_card>credit card|debit card|\bcard ending|visa|master\s?card|amex|american express|discover"
    r"|\b(?:my|the|that) card\b)",
    re.IGNORECASE)
NEGATED_PAYMENT = re.compile(r"\b(?:instead of|rather than|not (?:to |on |with )?(?:the |my )?|don't want|do not want)"
                             r"[^,.;]{0,40}", re.IGNORECASE)


@dataclass(frozen=True)
class PaymentRef:
    """A payment method the user referred to: an explicit id, a kind, or 'the original one'."""

    kind: str  # id | paypal | gift_card | credit_card | original
    value: str = ""  # the id, or the card brand
    last_four: str = ""


def order_ids(text: str) -> list[str]:
    """Order ids in order of mention, normalised to '#W1234567'."""
    seen: list[str] = []
    for m in ORDER_ID.finditer(text):
        oid = f"#W{m.group(1)}"
        if oid not in seen:
            seen.append(oid)
    return seen


def ten_digit_ids(text: str) -> list[str]:
    """10-digit numbers (item or product ids) in order of mention, duplicates kept."""
    return TEN_DIGITS.findall(text)


def emails(text: str) -> list[str]:
    return [e.rstrip(".") for e in EMAIL.findall(text)]


def payment_ids(text: str) -> list[str]:
    return PAYMENT_ID.findall(text)


def user_ids(text: str) -> list[str]:
    """User ids like 'yusuf_rossi_9620' (not payment method ids, not inside emails)."""
    without_emails = EMAIL.sub(" ", text)
    return [u for u in USER_ID.findall(without_emails)
            if not u.startswith(("credit_card_", "gift_card_", "paypal_"))]


def zip_code(text: str) -> str | None:
    """The zip code: a labelled one first, else a lone 5-digit number outside an address."""
    m = ZIP_LABELLED.search(text)
    if m:
        return m.group(1)
    if STREET.search(text):
        return None  # a bare number in a message with a street address belongs to the address
    found = FIVE_DIGITS.findall(EMAIL.sub(" ", text))
    return found[0] if len(found) == 1 else None


def person_name(text: str) -> tuple[str, str] | None:
    """(first, last) when the user introduces themselves, else None."""
    clean = EMAIL.sub(" ", text)
    for pattern in (NAME_INTRO, NAME_BEFORE_ZIP):
        for m in pattern.finditer(clean):
            first, last = m.group(1), m.group(2)
            if first.lower() not in NOT_A_NAME and last.lower() not in NOT_A_NAME:
                return first.capitalize(), last.capitalize()
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", re.sub(r"\d{5}|zip(?: ?code)?|\bis\b", " ", clean, flags=re.I))
    if len(words) == 2 and not {w.lower() for w in words} & NOT_A_NAME and zip_code(text):
        return words[0].capitalize(), words[1].capitalize()
    return None


def payment_refs(text: str) -> list[PaymentRef]:
    """Payment methods referred to, in order of mention; ones the user rules out are dropped."""
    kept = NEGATED_PAYMENT.sub(" ", text)
    refs: list[PaymentRef] = [PaymentRef("id", pid) for pid in payment_ids(kept)]
    kept = PAYMENT_ID.sub(" ", kept)
    last_four = next((a or b for a, b in LAST_FOUR.findall(kept)), "")
    for m in PAYMENT_WORDS.finditer(kept):
        kind = m.lastgroup or ""
        if kind == "credit_card":
            word = m.group(0).lower()
            brand = next((b for k, b in CARD_BRANDS.items() if k in word), "")
            ref = PaymentRef("credit_card", brand, last_four)
        else:
            ref = PaymentRef(kind)
        if ref not in refs:
            refs.append(ref)
    if last_four and not any(r.kind == "credit_card" for r in refs):
        refs.append(PaymentRef("credit_card", "", last_four))
    return refs


def address(text: str) -> dict[str, str]:
    """The address fields the text states (address1, address2, city, state, zip, country); may be partial."""
    out: dict[str, str] = {}
    keyed = dict(re.findall(r"\b(address1|address2|city|state|zip|country)\s*[:=]\s*([^,;\n]+)", text, re.I))
    if keyed:
        return {k.lower(): v.strip(" .") for k, v in keyed.items()}
    street = STREET.search(text)
    if not street:
        second = SECOND_LINE.search(text)  # 'deliver it to Suite 641 instead': a partial address
        return {"address2": second.group(1).strip()} if second else {}
    out["address1"] = street.group(1).strip().rstrip(".")
    tail = text[street.end():]
    for raw in re.split(r"[,;\n]", tail):
        part = raw.strip(" .!?")
        if not part:
            continue
        second = SECOND_LINE.search(part)
        if second and "address2" not in out:
            out["address2"] = second.group(1).strip()
            part = (part[:second.start()] + part[second.end():]).strip(" .")
            if not part:
                continue
        zip_match = FIVE_DIGITS.search(part)
        if zip_match and "zip" not in out:
            out["zip"] = zip_match.group(1)
            rest = (part[:zip_match.start()] + part[zip_match.end():]).strip(" .")
            if rest and "state" not in out and len(rest.split()) <= 3:
                out["state"] = rest.upper() if STATE_CODE.match(rest) else rest
            continue
        if COUNTRY.match(part):
            out["country"] = "USA"
        elif STATE_CODE.match(part) and "city" in out and "state" not in out:
            out["state"] = part.upper()
        elif "city" not in out and re.fullmatch(r"[A-Za-z .'-]+", part) and len(part.split()) <= 3:
            out["city"] = part
    return out
