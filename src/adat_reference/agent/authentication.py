"""Authentication and the one-user-per-conversation rule.

The user is located by email, or by first name + last name + zip code, even when they state a
user id (a user id alone verifies nothing). Name and zip may arrive in different messages.
"""

from __future__ import annotations

import contextlib

from adat.errors import ToolError
from adat_reference.agent import silent
from adat_reference.agent.nlu import Parsed
from adat_reference.agent.session import Session


def _lookup_user(s: Session, out: list[str], tool: str, arguments: dict[str, str], *, kind: str,
                 credential: str, alternative: str) -> str | None:
    """The user id a lookup tool finds, or None after telling the user the credential cannot be used.

    ``kind`` is the credential's name in the rule's ``credentials`` parameter ('email', 'name and zip code').
    """
    found = silent.located_without_lookup(s, tool, arguments)  # a silent fault skips the call
    if found is None:
        with contextlib.suppress(ToolError):
            found = s.call(tool, **arguments)
    if s.check("auth_lookup", lambda p: found is not None and kind in p["credentials"]):
        return found  # None only when a fault accepts a credential that located no one: nothing to verify
    s.denied_this_turn.add("identity_asked")
    key = "denied" if found is None else "unsupported"
    out.append(s.say("auth_lookup", key, credential=credential, alternative=alternative))
    return None


def _verified(s: Session, user_id: str) -> str:
    s.user_id = user_id
    user = s.db.users[user_id]
    return f"Thank you, {user.name.first_name}; I have verified your identity (user id {user_id})."


def absorb_identity(s: Session, p: Parsed) -> list[str]:
    """Authenticate from the identity details of the message, or apply the one-user rule."""
    fresh_name = p.name is not None or (p.zip is not None and s.name_hint is not None)
    if p.name:
        s.name_hint = p.name
    if p.zip:
        s.zip_hint = p.zip
    name_zip = (s.name_hint, s.zip_hint) if fresh_name and s.name_hint and s.zip_hint else None
    if s.user_id is not None:
        return _same_user(s, p, name_zip if p.name else None)
    if not (p.emails or p.user_ids or p.name or p.zip):
        return []
    out: list[str] = []
    found: str | None = None
    for email in p.emails[:1]:
        found = _lookup_user(s, out, "find_user_id_by_email", {"email": email}, kind="email",
                             credential=f"the email address {email}",
                             alternative="your first and last name with your zip code")
    if found is None and name_zip is not None:
        (first, last), zip_code = name_zip
        found = _lookup_user(s, out, "find_user_id_by_name_zip",
                             {"first_name": first, "last_name": last, "zip": zip_code},
                             kind="name and zip code", credential=f"the name {first} {last} and zip code {zip_code}",
                             alternative="the email address on your account")
    if p.user_ids:
        stated = p.user_ids[0]
        if not s.check("auth_user_id_not_enough", lambda _params: found is not None and found == stated):
            if found is None:
                out.append(s.say("auth_user_id_not_enough"))
                s.denied_this_turn.add("identity_asked")
            else:  # the lookup verified the customer; the stated id played no part
                out.append(s.say("auth_user_id_not_enough", "ignored"))
        elif found is None:  # a fault lets a stated user id authenticate on its own
            try:
                s.call("get_user_details", user_id=stated)
                found = stated
                out.append(s.say("auth_user_id_not_enough", "allowed", user_id=stated))
            except ToolError:
                s.holds("auth_lookup", False)
                out.append(s.say("auth_lookup", credential=f"the user id {stated}",
                                 alternative="the email address on your account"))
    if found is not None:
        out.append(_verified(s, found))
    elif not out and s.name_hint and not s.zip_hint:
        out.append(s.say("auth_lookup", "ask_zip"))
    elif not out and s.zip_hint and not s.name_hint:
        out.append(s.say("auth_lookup", "ask_name"))
    return out


def _same_user(s: Session, p: Parsed, name_zip: tuple[tuple[str, str], str] | None) -> list[str]:
    """Identity details after authentication: the same user is fine, another user is refused."""
    others: set[str] = set()
    for email in p.emails[:1]:
        with contextlib.suppress(ToolError):
            others.add(s.call("find_user_id_by_email", email=email))
    if name_zip is not None:
        (first, last), zip_code = name_zip
        with contextlib.suppress(ToolError):
            others.add(s.call("find_user_id_by_name_zip", first_name=first, last_name=last, zip=zip_code))
    others |= {u for u in p.user_ids if u in s.db.users}
    if not others:
        return []
    current = s.user
    assert current is not None
    if s.holds("one_user", others == {current.user_id}):
        if others == {current.user_id}:
            return ["Yes, that is the account I have verified."]
        return [_verified(s, sorted(others - {current.user_id})[0])]  # a fault lets the conversation switch
    return [s.say("one_user", name=f"{current.name.first_name} {current.name.last_name}")]


def require_auth(s: Session, request: str, *, order_id: str | None = None, log_allowed: bool = True) -> str | None:
    """None when the user is authenticated; otherwise the sentence asking them to authenticate.

    When a fault lets an unauthenticated request through, the agent takes the owner of the order
    the request names (``order_id``) as the customer; without an order it still has no account
    to act on and asks for the identity.
    """
    if s.user_id is not None:
        if not log_allowed or s.holds("auth_required", True):
            return None
        return s.say("auth_required", request=request)  # a fault refuses even a verified customer
    if "auth_required" not in s.denied_this_turn:
        s.denied_this_turn.add("auth_required")
        if s.holds("auth_required", False):
            s.auth_pass = True
    order = s.order(order_id)
    if s.auth_pass and order is not None and order.user_id in s.db.users:
        s.user_id = order.user_id
        return None
    if "identity_asked" in s.denied_this_turn:
        return ""  # this turn's reply already asks for the email or name + zip code
    s.denied_this_turn.add("identity_asked")
    return s.say("auth_required", request=request)
