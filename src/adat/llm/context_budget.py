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

import bisect
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


def input_budget(llm: LLMSettings, provider: str, model: str) -> int:
    """Tokens a request to ``provider/model`` may use: its context window (its own entry in
    ``llm.context_tokens_by_model``, else ``llm.context_tokens``) minus the room for the answer."""
    windows = llm.context_tokens_by_model
    return windows.get(f"{provider}/{model}", windows.get(model, llm.context_tokens)) - llm.max_output_tokens


def request_tokens(request: LLMRequest) -> int:
    """The estimated size of what the provider receives: messages, tools and response schema."""
    return rough_tokens(_json(request.messages)) + _extra_tokens(request)


def fit_request(request: LLMRequest, budget: int, template: PromptTemplate | None) -> tuple[LLMRequest, Cut]:
    """``request`` as it is when it fits ``budget`` tokens; else cut by the rule (module docstring).

    ``template`` is the prompt the request was rendered from (None for a raw chat): a prompt is cut
    in its variables and rendered again, a raw chat in its messages.
    """
    if request_tokens(request) <= budget:
        return request, Cut()
    room = budget - _extra_tokens(request)
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

    # the fewest drops that fit (fitting is monotone in k); len(order) + 1 when even all do not
    k = bisect.bisect_left(range(len(order) + 1), True, key=lambda k: fits(dropped(k)))
    counts = Counter(order[:k])
    parts = [f"dropped the oldest {counts[n]} of {len(plain[n])} {n}" for n in history if counts[n]]
    values = dropped(k)
    if k > len(order):
        base = values

        def capped(cap: int) -> dict[str, Any]:
            return {**base, **{n: _cap(base[n], cap) for n in untrusted if n in base}}

        texts = [t for n in untrusted if n in base for t in _texts(base[n])]
        cap = _largest_cap(lambda cap: fits(capped(cap)), max(map(len, texts), default=0))
        if cap is None:
            raise _overflow(f"prompt {what!r}", rough_tokens(_json(template.render(capped(MIN_KEEP)))), room)
        values = capped(cap)
        parts.append(_middle_part(texts, cap))
    return template.render(values), values, sum(counts.values()), parts


def _fit_chat(messages: list[dict[str, Any]], room: int, role: str) -> tuple[list[dict[str, Any]], list[str]]:
    def cuttable(m: dict[str, Any]) -> bool:
        return m.get("role") != "system" and isinstance(m.get("content"), str)

    def capped(cap: int) -> list[dict[str, Any]]:
        return [{**m, "content": _middle(m["content"], cap)} if cuttable(m) else m for m in messages]

    texts = [m["content"] for m in messages if cuttable(m)]
    cap = _largest_cap(lambda cap: rough_tokens(_json(capped(cap))) <= room, max(map(len, texts), default=0))
    if cap is None:
        raise _overflow(f"the {role} chat", rough_tokens(_json(capped(MIN_KEEP))), room)
    return capped(cap), [_middle_part(texts, cap)]


def _drop_order(lists: dict[str, list[Any]]) -> list[str]:
    """The list each successive drop takes its oldest item from: the largest one left (ties: declared first)."""
    sizes = {n: [len(render_value(item)) for item in items] for n, items in lists.items()}
    left = {n: sum(s) for n, s in sizes.items()}
    taken = Counter[str]()
    order: list[str] = []
    while not_empty := [n for n in sizes if taken[n] < len(sizes[n])]:
        name = max(not_empty, key=lambda n: left[n])
        left[name] -= sizes[name][taken[name]]
        taken[name] += 1
        order.append(name)
    return order


def _largest_cap(fits: Callable[[int], bool], longest: int) -> int | None:
    """The largest cap in [MIN_KEEP, longest] at which the request fits (it then fits at every smaller
    cap too); None when it does not fit even at MIN_KEEP."""
    caps = range(MIN_KEEP, max(longest, MIN_KEEP) + 1)
    first_too_big = bisect.bisect_left(caps, True, key=lambda cap: not fits(cap))
    return caps[first_too_big - 1] if first_too_big else None


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


def _middle_part(texts: list[str], cap: int) -> str:
    return f"cut the middle of {sum(len(t) > cap + SLACK for t in texts)} texts to {cap} characters"


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
