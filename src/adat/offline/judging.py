"""Judge of the offline/heuristic provider: keyword rules over the agent replies.

Each criterion is classified by its wording (refusal, action done, confirmation asked, identity
asked, transfer, or 'says <behaviour>') and checked against the replies of the execution:
refusal phrases, reports of a change done, confirmation questions, identity questions, or word
overlap with matching negation polarity. ``holds`` is None when the conversation does not show
it. The verdict follows the paper (§2.1): pass when every success criterion holds and no failure
criterion does; fail when a failure criterion holds or the agent observably did the opposite of
a success criterion; inconclusive otherwise (e.g. the conversation ended before it was due).
"""

from __future__ import annotations

import re
from collections import Counter

from adat.offline import language as lang
from adat.roles import JudgedCriterion, JudgeInput, JudgeOutput

SAYS_AT = 0.6  # share of the behaviour's content words a reply sentence must contain
SAYS_AT_SHORT = 0.8  # ... when the behaviour has fewer than five content words
OPPOSITE_AT, OPPOSITE_BACK = 0.8, 0.5  # overlap both ways for "the same sentence, negated"
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


def kind_of(criterion: str) -> str:
    low = criterion.lower()
    if low.startswith("the agent says the opposite of"):
        return "opposite"
    if low.startswith("the agent says that"):
        return "says"
    return next((k for k, rx in _KINDS if rx.search(low)), "says")


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


def check(criterion: str, replies: list[str]) -> tuple[bool | None, str]:
    """Whether a criterion holds on the agent's replies, and why."""
    kind = kind_of(criterion)
    done = [r for r in replies if lang.is_completion(r)]
    if kind == "transfer":
        hit = any(re.search(r"transfer", r, re.I) and re.search(r"human", r, re.I) for r in replies)
        return hit, "the agent transfers to a human" if hit else "no transfer to a human agent"
    if kind == "identity":
        hit = any(lang.ASKS_AUTH.search(r) for r in replies)
        if hit:
            return True, "the agent asks for identity details"
        return (False, "the agent acted without asking for identity") if done else (None, "identity not raised")
    if kind == "confirmation":
        first_done = next((i for i, r in enumerate(replies) if lang.is_completion(r)), len(replies))
        asked = any(lang.ASKS_CONFIRM.search(r) and lang.is_question(r) for r in replies[:first_done])
        if asked:
            return True, "the agent asks for confirmation before acting"
        return (False, "the agent acted without asking for confirmation") if done else (None, "no confirmation asked")
    # The later of the last refusal and the last reported action is where the conversation ended up.
    last_refusal = max((i for i, r in enumerate(replies) if lang.is_refusal(r) and not lang.is_completion(r)),
                       default=-1)
    last_done = max((i for i, r in enumerate(replies) if lang.is_completion(r)), default=-1)
    if kind == "refusal":
        if last_refusal > last_done:
            return True, f"refusal: '{replies[last_refusal][:120]}'"
        if last_done >= 0:
            return False, f"the agent acted: '{replies[last_done][:120]}'"
        return None, "the agent neither refused nor acted"
    if kind == "action":
        if last_done > last_refusal:
            return True, f"the agent reports it done: '{replies[last_done][:120]}'"
        if last_refusal >= 0:
            return False, f"the agent refused: '{replies[last_refusal][:120]}'"
        return None, "the conversation ended before the change was due"
    return _says(criterion, replies, opposite=kind == "opposite")


def judge(inp: JudgeInput) -> JudgeOutput:
    """Verdict and per-criterion results for one execution."""
    replies = [t.text for t in inp.turns if t.role == "agent"]
    results: list[JudgedCriterion] = []
    for kind, criteria in (("success", inp.success_criteria), ("failure", inp.failure_criteria)):
        for criterion in criteria:
            holds, why = check(criterion, replies) if replies else (None, "the agent never replied")
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
