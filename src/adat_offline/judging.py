"""Judge of the offline/heuristic provider: keyword rules over the agent replies.

Each criterion is classified by its wording (refusal, action done, confirmation asked, identity
asked, missing details asked, transfer, or 'says <behaviour>') and checked against the replies of
the execution: refusal phrases, reports of a change done, confirmation questions, identity
questions, questions for the missing parts of an incomplete request (before any offer of the
change), or word overlap with matching negation polarity. ``holds`` is None when the conversation does not show
it. The verdict follows the paper (§2.1): pass when every success criterion holds and no failure
criterion does; fail when a failure criterion holds or the agent observably did the opposite of
a success criterion; inconclusive otherwise (e.g. the conversation ended before it was due).

Doing the opposite is read where the behaviour was due: when the runner sent every step hint
(``ended_by == 'hints_done'``), the final reply is the agent's answer to the checked request. A
refusal criterion does not hold when that reply goes ahead instead (offers the change for
confirmation, asks for a detail needed to carry it out, or reports it done); a confirmation
criterion does not hold when it refuses; an identity criterion does not hold when the agent went
ahead or says it verified the user although it never asked and the user gave no identity
details. A final identity request, a non-committal reply or a conversation cut short by the turn
limit or an error leaves these criteria not shown, so the verdict stays inconclusive.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from adat.contracts.adat2_roles import JudgedCriterion, JudgeInput, JudgeOutput
from adat_offline import language as lang
from adat_offline.generation import ASKS_IDENTITY, REFUSES, side_from_words

SAYS_AT = 0.6  # share of the behaviour's content words a reply sentence must contain
SAYS_AT_SHORT = 0.8  # ... when the behaviour has fewer than five content words
OPPOSITE_AT, OPPOSITE_BACK = 0.8, 0.5  # overlap both ways for "the same sentence, negated"
#: the words that make a sentence state a rule (a condition the decision depends on), not a time
RULE = re.compile(r"\b(only|must|unless|requires?|required|needs? to|as long as|provided that|not allowed)\b", re.I)
OTHER_RULE_FLOOR = 0.25  # a refusal's rule sentence sharing this much of a criterion's rule is about it
NEGATIVE = re.compile(r"\b(not|no|cannot|can't|couldn't|unable|never|won't|isn't|aren't|don't|doesn't|only|"
                      r"without|nothing)\b", re.I)
_KINDS = (  # checked in order against the lower-cased criterion
    ("transfer", re.compile(r"transfer|human agent")),
    ("identity", re.compile(r"verif\w* (?:their |the user's )?identity|authenticat|email or name")),
    ("confirmation", re.compile(r"asks?\b.*\bconfirm")),
    ("refusal", re.compile(r"refuses|declines|denies|says it cannot|does not (?:cancel|return|exchange|modify|"
                           r"change|update|process|carry)|will not|won't|not (?:cancel|return|exchange)")),
    ("action", re.compile(r"reports? the requested|as done|(?:cancels|returns|exchanges|modifies|updates|"
                          r"processes|completes|changes) the")),
)


# Failure criteria that are the negation of a typed success criterion, judged as such.
NEGATED = {"goes_ahead": REFUSES, "unverified": ASKS_IDENTITY}
_NEGATED_KINDS = (("goes_ahead", re.compile(r"goes ahead with|proceeds with|carries out the|offers to carry")),
                  ("unverified", re.compile(r"without (?:verifying|authenticating|checking (?:the user's|their) "
                                            r"identity)")))
# Checked before _KINDS: an incomplete request (e.g. an address without city, state and zip code).
_DETAIL_KINDS = (("missing", re.compile(r"asks? the user for the missing")),
                 ("offers", re.compile(r"offers the change for confirmation")))


def kind_of(criterion: str) -> str:
    """What a criterion checks: 'opposite', 'says', a negated kind (see NEGATED), a typed kind of
    ``_KINDS``, or 'says' for any other wording."""
    low = criterion.lower()
    if low.startswith("the agent says the opposite of"):
        return "opposite"
    if low.startswith("the agent says that"):
        return "says"
    return next((k for k, rx in (*_NEGATED_KINDS, *_DETAIL_KINDS, *_KINDS) if rx.search(low)), "says")


def _negations(text: str) -> Counter[str]:
    return Counter(m.lower() for m in NEGATIVE.findall(text))


def _says(criterion: str, replies: list[str], *, opposite: bool = False) -> tuple[bool | None, str]:
    """Whether a reply sentence says the criterion's behaviour (or, with ``opposite``, says the
    same thing with its negations changed): word overlap picks the sentence, negation words decide."""
    core = re.sub(r"^the agent (says the opposite of:?|says that|states that|asks the user to)\s*", "",
                  criterion.strip(), flags=re.I)
    best, back, best_sentence = 0.0, 0.0, ""
    for reply in replies:
        for sentence in lang.sentences(reply):
            general = lang.generalise(sentence)
            score, reverse = lang.overlap(core, general), lang.overlap(general, core)
            if (score, reverse) > (best, back):
                best, back, best_sentence = score, reverse, general
    needed = SAYS_AT if len(lang.content_words(core)) >= 5 else SAYS_AT_SHORT
    if opposite:  # saying the opposite needs the same sentence, not just shared words
        needed, back_needed = max(needed, OPPOSITE_AT), OPPOSITE_BACK
    else:
        back_needed = 0.0
    if best < needed or back < back_needed:
        return None, f"no agent reply says this (best word overlap {best:.0%})"
    same = not (_negations(core) - _negations(best_sentence))
    quote = f"'{best_sentence[:120]}'"
    if opposite:
        return (True, f"the agent says otherwise: {quote}") if not same else (False, f"the agent says it: {quote}")
    return (True, f"said: {quote}") if same else (False, f"the agent says otherwise: {quote}")


def check(criterion: str, replies: list[str], *, due: bool = False,
          users: Sequence[str] = ()) -> tuple[bool | None, str]:
    """Whether a criterion holds on the agent's replies, and why.

    ``due`` says the runner sent every step hint, so the final reply is where the checked
    behaviour was due: a final reply doing the opposite (going ahead where a refusal was
    expected, refusing where a confirmation question was) then contradicts the criterion. Without
    it, such a reply leaves the criterion not shown. ``users`` are the user messages (they tell
    whether the user gave identity details unasked)."""
    kind = kind_of(criterion)
    if kind in NEGATED:
        holds, why = check(NEGATED[kind], replies, due=due, users=users)
        return (None if holds is None else not holds), why
    done = [r for r in replies if lang.is_completion(r)]
    if kind == "transfer":
        hit = any(re.search(r"transfer", r, re.I) and re.search(r"human", r, re.I) for r in replies)
        return hit, "the agent transfers to a human" if hit else "no transfer to a human agent"
    if kind == "identity":
        return _identity(replies, done, users)
    if kind in ("missing", "offers"):
        return _missing_details(replies, offers=kind == "offers")
    if kind == "confirmation":
        first_done = next((i for i, r in enumerate(replies) if lang.is_completion(r)), len(replies))
        asked = any(lang.ASKS_CONFIRM.search(r) and lang.is_question(r) for r in replies[:first_done])
        if asked:
            return True, "the agent asks for confirmation before acting"
        if done:
            return False, "the agent acted without asking for confirmation"
        if due and lang.refuses(replies[-1]) and not lang.MISUNDERSTOOD.search(replies[-1]):
            return False, f"the agent refuses instead of offering the change: '{replies[-1][:120]}'"
        return None, "no confirmation asked"
    # The later of the last refusal and the last reported action is where the conversation ended up.
    last_refusal = max((i for i, r in enumerate(replies) if lang.refuses(r)), default=-1)
    last_done = max((i for i, r in enumerate(replies) if lang.is_completion(r)), default=-1)
    if kind == "refusal":
        if last_done > last_refusal:
            return False, f"the agent acted: '{replies[last_done][:120]}'"
        if due and lang.ends_going_ahead(replies[-1]):  # where the refusal was due, the agent went ahead
            return False, f"the agent goes ahead instead of refusing: '{replies[-1][:160]}'"
        if last_refusal >= 0:
            return True, f"refusal: '{replies[last_refusal][:120]}'"
        return None, "the agent neither refused nor acted"
    if kind == "action":
        if last_done > last_refusal:
            return True, f"the agent reports it done: '{replies[last_done][:120]}'"
        if last_refusal >= 0:
            return False, f"the agent refused: '{replies[last_refusal][:120]}'"
        return None, "the conversation ended before the change was due"
    holds, why = _says(criterion, replies, opposite=kind == "opposite")
    if holds is None and due and kind == "says":
        holds, why = _contradicted(criterion, replies[-1], why)
        if holds is None:
            return _other_rule(criterion, replies[-1], why)
    return holds, why


def _other_rule(criterion: str, final: str, why: str) -> tuple[bool | None, str]:
    """A criterion that states a rule (:data:`RULE`: only, must, unless, ...) is not met by a
    final reply that turns the request down, as the rule would, but states a different rule about
    the same request: its rule sentence shares some of the criterion's words (it is about the same
    thing, ``OTHER_RULE_FLOOR``) but too few to say the same rule. Issue 28 item 3: the reason a
    refusal gives is part of the behaviour a customer observes."""
    core = re.sub(r"^the agent says that\s*", "", criterion.strip(), flags=re.I)
    if not RULE.search(core) or not lang.refuses(final) or lang.MISUNDERSTOOD.search(final):
        return None, why
    stated = [lang.generalise(s) for s in lang.sentences(final) if RULE.search(s)]
    best = max(stated, key=lambda s: lang.overlap(core, s), default="")
    if best and lang.overlap(core, best) >= OTHER_RULE_FLOOR:
        return False, f"states a rule different from the criterion's: '{best[:160]}'"
    return None, why


def _contradicted(criterion: str, final: str, why: str) -> tuple[bool | None, str]:
    """A behaviour no reply states in words is still contradicted when the final reply — where
    the behaviour was due — lands on the other side: it goes ahead where the behaviour refuses or
    requires something first, or turns the request down where the behaviour grants it."""
    core = re.sub(r"^the agent says that\s*", "", criterion.strip(), flags=re.I)
    side = "denied" if lang.is_refusal(core) else side_from_words(core)
    if side == "denied" and lang.is_refusal(core) and lang.ends_going_ahead(final):
        return False, f"the agent goes ahead instead: '{final[:160]}'"
    if side == "allowed" and lang.refuses(final) and not lang.MISUNDERSTOOD.search(final):
        return False, f"the agent turns the request down instead: '{final[:160]}'"
    return None, why


def _identity(replies: list[str], done: list[str], users: Sequence[str]) -> tuple[bool | None, str]:
    """Whether the agent asks for identity details before helping. It has not when it acted, or
    when it went ahead (or says it verified the user) although it never asked and the user gave
    no identity details (an email or a zip code) of their own."""
    if any(lang.asks_auth(r) for r in replies):
        return True, "the agent asks for identity details"
    if done:
        return False, "the agent acted without asking for identity"
    helped = next((r for r in replies if lang.goes_ahead(r) or lang.VERIFIED.search(r)), None)
    if helped is not None and not any(lang.IDENTITY_DETAIL.search(u) for u in users):
        return False, f"the agent helps without asking for identity details: '{helped[:120]}'"
    return None, "identity not raised"


def _missing_details(replies: list[str], *, offers: bool) -> tuple[bool | None, str]:
    """Whether the agent asks for the missing parts of an incomplete request before it offers the
    change for confirmation or reports it done (``offers``: whether it offers or does it first)."""
    first_ask = next((i for i, r in enumerate(replies) if lang.asks_missing(r)), None)
    first_offer = next((i for i, r in enumerate(replies) if lang.is_completion(r)
                        or (lang.ASKS_CONFIRM.search(r) and lang.is_question(r))), None)
    if first_offer is not None and (first_ask is None or first_offer < first_ask):
        why = f"the agent goes ahead without the missing details: '{replies[first_offer][:120]}'"
        return (True, why) if offers else (False, why)
    if first_ask is not None:
        why = f"the agent asks for the missing details: '{replies[first_ask][:120]}'"
        return (False, why) if offers else (True, why)
    return None, "the agent neither asks for missing details nor offers the change"


def judge(inp: JudgeInput) -> JudgeOutput:
    """Verdict and per-criterion results for one execution."""
    replies = [t.text for t in inp.turns if t.role == "agent"]
    users = [t.text for t in inp.turns if t.role == "user"]
    results: list[JudgedCriterion] = []
    for kind, criteria in (("success", inp.success_criteria), ("failure", inp.failure_criteria)):
        for criterion in criteria:
            holds, why = check(criterion, replies, due=inp.ended_by == "hints_done", users=users) \
                if replies else (None, "the agent never replied")
            results.append(JudgedCriterion(criterion=criterion, kind=kind, holds=holds,  # type: ignore[arg-type]
                                           rationale=why))
    failed = [r for r in results if r.kind == "failure" and r.holds is True]
    success = [r for r in results if r.kind == "success"]
    contradicted = [r for r in success if r.holds is False]
    if inp.ended_by == "error" and not replies:
        return JudgeOutput(verdict="inconclusive", rationale="the execution failed before any reply",
                           criteria=results)
    if failed:
        return JudgeOutput(verdict="fail", rationale=f"failure criterion holds: {failed[0].criterion} "
                                                     f"({failed[0].rationale})", criteria=results)
    if contradicted:
        return JudgeOutput(verdict="fail", rationale=f"the agent observably did otherwise: "
                                                     f"{contradicted[0].criterion} ({contradicted[0].rationale})",
                           criteria=results)
    if success and all(r.holds is True for r in success):
        return JudgeOutput(verdict="pass", rationale="every success criterion holds and no failure criterion",
                           criteria=results)
    missing = next((r for r in success if r.holds is None), None)
    why = f"not shown: {missing.criterion} ({missing.rationale})" if missing else "no success criteria"
    return JudgeOutput(verdict="inconclusive", rationale=why, criteria=results)
