"""Context limits: a request that would overflow its model's context is cut before it is sent.

The **input budget** of a request is its model's context window (``llm.context_tokens``, or the
model's entry in ``llm.context_tokens_by_model``) minus the room kept for the answer
(``llm.max_output_tokens``). Tokens are estimated, not counted: :func:`rough_tokens` (four
characters a token) over the JSON of the messages, plus the tools and response schema sent with
them (:func:`request_tokens`). Give a model a window with some margin below its real one.

A request within its budget is sent exactly as rendered. One over it is cut by this rule
(``context-v1``), the same for every provider and role, and the same every time:

1. **Oldest history first.** Variables a prompt file marks ``drop_oldest`` (earlier sessions,
   earlier traces, recent tests: lists ordered oldest first) lose whole items, oldest first, each
   time from the list that is then the largest, until the request fits or they are empty.
2. **Then the middle of long texts.** Every text inside an untrusted variable (agent replies,
   trace turns, artifacts; in a raw chat every message but the system message, tool outputs
   included) longer than a cap ``L`` keeps its first ⌈L/2⌉ and last ⌊L/2⌋ characters around
   ``[… N characters cut …]``. ``L`` is the largest cap at which the request fits, so the
   longest texts are cut first and short ones not at all; a text at most ``L + 64`` characters
   long is kept whole (its marker would cost about what it saves).
3. **Never the instructions**: the system message, the template's own text and trusted variables
   (tester facts, goals, criteria, instructions) are never cut. When the request does not fit even
   with ``L = 200``, the call fails with :class:`ContextOverflow`, and its row records that error.

What was cut is recorded on the call's ``llm_calls`` row (``cut_chars``, ``cut_items``,
``cut_rule``). The cut messages are what the response cache keys, so a budget changes a cache key
only when it changes the request. The structured variables a request carries for the offline
stand-in are cut alike, so it sees what a model would; a request that fits keeps them as they were.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from adat.config import LLMSettings
from adat.llm.prompts import PromptTemplate, render_value
from adat.llm.types import LLMError, LLMRequest

RULE = "context-v1"
#: the shortest cap of step 2; below it a text says too little to be worth sending
MIN_KEEP = 200
#: a text at most this much longer than the cap is kept whole (the marker costs about as much)
SLACK = 64


def rough_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    return (len(text) + 3) // 4


def marker(n: int) -> str:
    """What replaces the ``n`` characters cut from the middle of a text."""
    return f" [… {n} characters cut …] "


@dataclass(frozen=True)
class Cut:
    """What :func:`fit_request` removed: characters (net, markers counted), whole items, and how."""

    chars: int = 0
    items: int = 0
    rule: str = ""


class ContextOverflow(LLMError):
    """The request does not fit its model's context even after every cut the rule allows."""


def context_window(llm: LLMSettings, provider: str, model: str) -> int:
    """The context window of ``provider/model`` in tokens: its own entry, else ``llm.context_tokens``."""
    for name in (f"{provider}/{model}", model):
        if name in llm.context_tokens_by_model:
            return llm.context_tokens_by_model[name]
    return llm.context_tokens


def input_budget(llm: LLMSettings, provider: str, model: str) -> int:
    """Tokens a request to ``provider/model`` may use: its window minus the room for the answer."""
    return context_window(llm, provider, model) - llm.max_output_tokens


def request_tokens(request: LLMRequest) -> int:
    """The estimated size of what the provider receives: messages, tools and response schema."""
    return rough_tokens(_json(request.messages)) + _extra_tokens(request)


def fit_request(request: LLMRequest, budget: int, template: PromptTemplate | None) -> tuple[LLMRequest, Cut]:
    """``request`` as it is when it fits ``budget`` tokens; else cut by the rule (module docstring).

    ``template`` is the prompt the request was rendered from (None for a raw chat): a prompt is cut
    in its variables and rendered again, a raw chat in its messages.
    """
    room = budget - _extra_tokens(request)
    if rough_tokens(_json(request.messages)) <= room:
        return request, Cut()
    if template is not None:
        messages, variables, items, parts = _fit_prompt(template, request.variables, room, request.prompt_id)
        update: dict[str, Any] = {"messages": messages, "variables": variables}
    else:
        messages, parts = _fit_chat(request.messages, room, request.role)
        items, update = 0, {"messages": messages}
    chars = _content_chars(request.messages) - _content_chars(messages)
    return request.model_copy(update=update), Cut(chars=chars, items=items, rule=f"{RULE}: " + "; ".join(parts))


# --- the two steps -----------------------------------------------------------------------------
def _fit_prompt(template: PromptTemplate, variables: dict[str, Any], room: int,
                what: str) -> tuple[list[dict[str, Any]], dict[str, Any], int, list[str]]:
    def fits(values: dict[str, Any]) -> bool:
        return rough_tokens(_json(template.render(values))) <= room

    declared = template.spec.variables
    history = [v.name for v in declared if v.drop_oldest and isinstance(variables.get(v.name), list)]
    untrusted = [v.name for v in declared if v.untrusted]
    # Plain JSON values render to the same text as the originals and can be cut structurally.
    plain = {**variables, **{n: _plain(variables[n]) for n in {*history, *untrusted} if n in variables}}
    order = _drop_order({n: plain[n] for n in history})

    def dropped(k: int) -> dict[str, Any]:
        counts = Counter(order[:k])
        return {**plain, **{n: plain[n][counts[n]:] for n in history}}

    k = _smallest(lambda k: fits(dropped(k)), len(order))
    counts = Counter(order[: len(order) if k is None else k])
    parts = [f"dropped the oldest {counts[n]} of {len(plain[n])} {n}" for n in history if counts[n]]
    values = dropped(len(order) if k is None else k)
    if k is None:
        base = values

        def capped(cap: int) -> dict[str, Any]:
            return {**base, **{n: _cap(base[n], cap) for n in untrusted if n in base}}

        longest = max((_longest_text(base[n]) for n in untrusted if n in base), default=0)
        cap = _largest(lambda cap: fits(capped(cap)), longest)
        if cap is None:
            raise _overflow(f"prompt {what!r}", rough_tokens(_json(template.render(capped(MIN_KEEP)))), room)
        values = capped(cap)
        parts.append(_middle_part(sum(_count_cut(base[n], cap) for n in untrusted if n in base), cap))
    return template.render(values), values, sum(counts.values()), parts


def _fit_chat(messages: list[dict[str, Any]], room: int, role: str) -> tuple[list[dict[str, Any]], list[str]]:
    def capped(cap: int) -> list[dict[str, Any]]:
        return [m if m.get("role") == "system" or not isinstance(m.get("content"), str)
                else {**m, "content": _middle(m["content"], cap)} for m in messages]

    def fits(cap: int) -> bool:
        return rough_tokens(_json(capped(cap))) <= room

    longest = max((len(m["content"]) for m in messages
                   if m.get("role") != "system" and isinstance(m.get("content"), str)), default=0)
    cap = _largest(fits, longest)
    if cap is None:
        raise _overflow(f"the {role} chat", rough_tokens(_json(capped(MIN_KEEP))), room)
    texts = [m["content"] for m in messages if m.get("role") != "system" and isinstance(m.get("content"), str)]
    return capped(cap), [_middle_part(_count_cut(texts, cap), cap)]


def _drop_order(lists: dict[str, list[Any]]) -> list[str]:
    """The list each successive drop takes its oldest item from: the largest one left (ties: declared first)."""
    sizes = {n: [len(render_value(item)) for item in items] for n, items in lists.items()}
    left = {n: sum(s) for n, s in sizes.items()}
    taken = Counter[str]()
    order: list[str] = []
    while any(taken[n] < len(sizes[n]) for n in sizes):
        name = max((n for n in sizes if taken[n] < len(sizes[n])), key=lambda n: left[n])
        left[name] -= sizes[name][taken[name]]
        taken[name] += 1
        order.append(name)
    return order


# --- search over a monotone test -----------------------------------------------------------------
def _smallest(ok: Callable[[int], bool], hi: int) -> int | None:
    """The smallest k in [0, hi] with ok(k), ok being monotone (false… then true…); None if none."""
    if not ok(hi):
        return None
    lo = 0
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
    return lo


def _largest(ok: Callable[[int], bool], hi: int) -> int | None:
    """The largest cap in [MIN_KEEP, hi] with ok(cap), ok being monotone (true… then false…)."""
    lo = MIN_KEEP
    if not ok(lo):
        return None
    hi = max(hi, lo)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


# --- texts -----------------------------------------------------------------------------------
def _middle(text: str, cap: int) -> str:
    if len(text) <= cap + SLACK:
        return text
    head, tail = (cap + 1) // 2, cap // 2
    return text[:head] + marker(len(text) - cap) + text[len(text) - tail:]


def _cap(value: Any, cap: int) -> Any:
    if isinstance(value, str):
        return _middle(value, cap)
    if isinstance(value, list):
        return [_cap(v, cap) for v in value]
    if isinstance(value, dict):
        return {k: _cap(v, cap) for k, v in value.items()}
    return value


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    return []


def _longest_text(value: Any) -> int:
    return max(map(len, _texts(value)), default=0)


def _count_cut(value: Any, cap: int) -> int:
    return sum(len(t) > cap + SLACK for t in _texts(value))


def _middle_part(texts: int, cap: int) -> str:
    return f"cut the middle of {texts} texts to {cap} characters"


def _plain(value: Any) -> Any:
    return value if isinstance(value, str) else json.loads(render_value(value))


def _json(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages, ensure_ascii=False, default=str)


def _extra_tokens(request: LLMRequest) -> int:
    if request.tools is None and request.response_schema is None:
        return 0
    return rough_tokens(json.dumps([request.tools, request.response_schema], ensure_ascii=False, default=str))


def _content_chars(messages: list[dict[str, Any]]) -> int:
    return sum(len(m["content"]) for m in messages if isinstance(m.get("content"), str))


def _overflow(what: str, tokens: int, room: int) -> ContextOverflow:
    return ContextOverflow(f"{what} needs about {tokens} tokens after every cut ({RULE}), over its input budget "
                           f"of {room}: raise llm.context_tokens (or the model's llm.context_tokens_by_model) if "
                           f"the model's window allows, or shorten the trusted inputs")
