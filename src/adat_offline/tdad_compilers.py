"""offline/heuristic as TDAD's compiler roles: PromptSmith and MutationSmith (DESIGN §9).

Both read only their role input (:mod:`adat.contracts.tdad_roles`) -- the artifact, the spec's clause
sentences for failing visible tests, or a mutation intent -- and know nothing of any one spec:

* PromptSmith writes into the prompt the clauses the failing tests cite, as
  ``- [CLAUSE_ID] sentence`` lines under one heading (attempt 0); from attempt 1 on, or when
  every such line is already there, it also appends each clause to the descriptions of the tools
  the clause names.
* MutationSmith removes the clause an intent is about. A tool the intent says not to call
  (``never call X``, ``skip X``, ``without X``, ``instead of calling X``) is taken out of every
  ``Call the tools in this order`` list and every sentence that orders it before another tool;
  then the prompt lines and tool-description sentences sharing the most content words with the
  intent are removed (attempt a removes the a best, a+1 when no tool was named), never a line
  about the ``respond`` call the response contract rests on.
"""

from __future__ import annotations

import re

from adat.contracts.tdad_clauses import clause_line, words
from adat.contracts.tdad_roles import (
    MutationSmithInput,
    MutationSmithOutput,
    PromptSmithInput,
    PromptSmithOutput,
    ToolDescriptionView,
)

RULES_HEADING = "Rules from the specification (follow every one):"
RESPOND_TOOL = "respond"
#: words too common in prompts and intents to say what a line is about
_COMMON = frozenset(["about", "after", "again", "always", "before", "being", "call", "called", "calling", "calls", "does", "each", "every", "from", "have", "into", "must", "never", "only", "other", "should", "than", "that", "their", "them", "then", "there", "they", "this", "those", "tool", "tools", "turn", "user", "users", "when", "where", "which", "while", "with", "without", "your", "yours", "also", "just", "make", "sure"])
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_RULE_LINE = re.compile(r"^\s*-\s*\[[^\]]+\]")


def _content(text: str) -> set[str]:
    return {w for w in words(text) if len(w) >= 4 and w not in _COMMON}


def promptsmith(inp: PromptSmithInput) -> PromptSmithOutput:
    prompt = inp.system_prompt.rstrip("\n")
    lines = [clause_line(g.clause, g.clause_text) for g in inp.failures if g.clause_text]
    new = [line for line in dict.fromkeys(lines) if line not in prompt]
    if new:
        if RULES_HEADING not in prompt:
            prompt += f"\n\n{RULES_HEADING}"
        prompt += "\n" + "\n".join(new)
    tools = {v.name: v.description for v in inp.tool_descriptions}
    edited_tools: list[str] = []
    if inp.attempt >= 1 or not new:
        for group in inp.failures:
            named = words(group.clause_text)
            for name in tools:
                if name in named and group.clause_text and group.clause_text not in tools[name]:
                    tools[name] = f"{tools[name].rstrip()} {group.clause_text}".strip()
                    edited_tools.append(name)
    rationale = (f"added {len(new)} clause line(s) for {', '.join(g.clause for g in inp.failures)}"
                 + (f"; tool descriptions of {', '.join(dict.fromkeys(edited_tools))}" if edited_tools else ""))
    return PromptSmithOutput(system_prompt=prompt + "\n",
                             tool_descriptions=[ToolDescriptionView(name=k, description=v) for k, v in tools.items()],
                             rationale=rationale)


_NEGATED = r"(?:never|not|n't|skip(?:ping)?|without|instead of|rather than)\s+(?:[a-z_]+\s+){0,3}?"
_ORDER_LIST = re.compile(r"(call the tools in this order:\s*)([^.]+)(\.)", re.IGNORECASE)


def dropped_tools(intent: str, tools: list[str]) -> list[str]:
    """Tools the intent tells the agent not to call."""
    low = intent.lower()
    return [t for t in tools if t != RESPOND_TOOL and re.search(_NEGATED + re.escape(t.lower()) + r"\b", low)]


def _without_tools(text: str, dropped: list[str]) -> str:
    def order(m: re.Match[str]) -> str:
        kept = [t.strip() for t in m.group(2).split(",") if t.strip() and t.strip() not in dropped]
        return f"{m.group(1)}{', '.join(kept)}{m.group(3)}" if kept else ""

    text = _ORDER_LIST.sub(order, text)
    parts = [p for p in _SENTENCE.split(text)
             if not (" before " in p and any(t in p for t in dropped))]  # gates on a dropped tool
    return " ".join(parts)


_FIRST = re.compile(r"^(?P<a>.+?)\s+(?:first|before)\b(?P<b>.+)$", re.IGNORECASE | re.DOTALL)


def reordered_tools(intent: str, descriptions: dict[str, str], tools: list[str]) -> tuple[str, str] | None:
    """``(A, B)`` when the intent says to do A first (or before) B: each side names a tool, or
    shares the most content words with one tool's name and description."""
    m = _FIRST.match(intent.strip())
    if not m:
        return None

    def tool_for(part: str) -> str:
        named = sorted((t for t in tools if t in part), key=part.find)
        if named:
            return named[0]  # the first one the side names
        scored = [(len(_content(part) & _content(f"{t.replace('_', ' ')} {descriptions.get(t, '')}")), t)
                  for t in tools if t != RESPOND_TOOL]
        best = max(scored, default=(0, ""))
        return best[1] if best[0] >= 1 and [s for s, _ in scored].count(best[0]) == 1 else ""

    a, b = tool_for(m.group("a")), tool_for(m.group("b"))
    return (a, b) if a and b and a != b else None


def _called_first(line: str, a: str, b: str) -> str:
    def order(m: re.Match[str]) -> str:
        tools = [t.strip() for t in m.group(2).split(",") if t.strip() and t.strip() != a]
        if b not in tools:
            return m.group(0)
        tools.insert(tools.index(b), a)
        return f"{m.group(1)}{', '.join(tools)}{m.group(3)}"

    return _ORDER_LIST.sub(order, line)


def mutationsmith(inp: MutationSmithInput) -> MutationSmithOutput:
    intent = _content(inp.intent)
    named = [v.name for v in inp.tool_descriptions]
    # tools the prompt orders by name count too: an artifact may describe none of its tools
    named += [t.strip() for m in _ORDER_LIST.finditer(inp.system_prompt) for t in m.group(2).split(",")
              if t.strip() and t.strip() not in named]
    dropped = dropped_tools(inp.intent, named)
    first = reordered_tools(inp.intent, {v.name: v.description for v in inp.tool_descriptions}, named)
    if first and not dropped:  # "do A first and B afterwards": A goes before B wherever B is called
        a, b = first
        inp = inp.model_copy(update={"system_prompt": "\n".join(
            _called_first(line, a, b) for line in inp.system_prompt.splitlines())})
        # and the sentences gating A behind B go (a rule line keeps its id)
        for sentence in [p for p in _SENTENCE.split(inp.system_prompt) if " before " in p and a in p and b in p]:
            kept = rule.group(0) if (rule := _RULE_LINE.match(sentence)) else ""
            inp = inp.model_copy(update={"system_prompt": inp.system_prompt.replace(sentence, kept)})
    source = inp.system_prompt
    if dropped:
        source = "\n".join(_without_tools(line, dropped) if line.strip() else line for line in source.splitlines())
        inp = inp.model_copy(update={
            "system_prompt": source,
            "tool_descriptions": [v.model_copy(update={"description": _without_tools(v.description, dropped)})
                                  for v in inp.tool_descriptions]})
    lines = inp.system_prompt.splitlines()
    # candidates: (shared content words, order, where, index); where = -1 for the prompt, else tool index
    candidates: list[tuple[int, int, int, int]] = []
    for i, line in enumerate(lines):
        shared = len(_content(line) & intent)
        if shared >= 2 and RESPOND_TOOL not in words(line):
            candidates.append((shared, len(candidates), -1, i))
    sentences = [_SENTENCE.split(v.description) for v in inp.tool_descriptions]
    for t, parts in enumerate(sentences):
        if inp.tool_descriptions[t].name == RESPOND_TOOL:
            continue
        for j, sentence in enumerate(parts):
            shared = len(_content(sentence) & intent)
            if shared >= 2:
                candidates.append((shared, len(candidates), t, j))
    # a rule line ("- [ID] ...") before prose that shares as many words: the mutant drops a rule
    chosen = sorted(candidates, key=lambda c: (-c[0], not (c[2] == -1 and _RULE_LINE.match(lines[c[3]])), c[1]))[
        : inp.attempt + (0 if dropped or first else 1)]
    drop_lines = {i for _, _, where, i in chosen if where == -1}
    drop_sentences = {(where, j) for _, _, where, j in chosen if where >= 0}
    prompt = "\n".join(line for i, line in enumerate(lines) if i not in drop_lines)
    tools = [ToolDescriptionView(name=v.name, description=" ".join(
        s for j, s in enumerate(sentences[t]) if (t, j) not in drop_sentences)) for t, v in enumerate(inp.tool_descriptions)]
    removed = [lines[i] for i in sorted(drop_lines)]
    return MutationSmithOutput(system_prompt=prompt + ("\n" if inp.system_prompt.endswith("\n") else ""),
                               tool_descriptions=tools,
                               rationale=f"dropped tools {dropped}; removed {len(removed)} prompt line(s) and "
                                         f"{len(drop_sentences)} tool sentence(s) about the intent: {removed[:3]}")
