"""What the offline spec agent reads from its prompt: clause lines, gates, retries, privacy.

The agent knows only its system prompt and tool descriptions. It understands:

* clause lines ``- [ID] text`` (the form PromptSmith writes them in); a clause is a *step* when
  its text has ``Branches: when <condition> go to <ID>; ...``, ``Call the tools in this order:
  a, b.``, ``If any of x, y is missing, ask the user for it with decision D.``, ``Do not proceed
  without x.`` or ``missing x: decision D.``;
* sentences naming tools around ``before`` (``A before B`` gates B behind A; ``confirmation
  before B`` makes B wait for a yes), anywhere in the prompt or a tool description;
* ``retry`` next to a tool name (retry it once on a timeout);
* ``never reveal`` / ``refuse requests for ...`` sentences naming fields (kept out of replies).

A prompt without these (a seed prompt) leaves the agent to its naive habits (see tdad_agent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adat_offline.tdad_text import words

_CLAUSE = re.compile(r"^\s*-\s*\[([A-Za-z0-9_.\-]+)\]\s*(.+?)\s*$")
_BRANCH = re.compile(r"when\s+(.+?)\s+go to\s+([A-Za-z0-9_]+)", re.IGNORECASE)
_TOOLS = re.compile(r"call the tools in this order:\s*([^.]+)\.", re.IGNORECASE)
_ASK = re.compile(r"if any of\s+(.+?)\s+is missing, ask the user for it(?: with decision ([A-Z0-9_]+))?",
                  re.IGNORECASE)
_MUST = re.compile(r"do not proceed without\s+([^.]+)\.", re.IGNORECASE)
_MISSING = re.compile(r"missing\s+([a-z0-9 _]+?):\s*decision\s+([A-Z0-9_]+)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass
class Step:
    node_id: str
    text: str
    branches: list[tuple[str, str]] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    ask_fields: list[str] = field(default_factory=list)
    ask_decision: str = ""
    must_have: list[str] = field(default_factory=list)
    missing_decision: str = ""


@dataclass
class Rules:
    steps: dict[str, Step] = field(default_factory=dict)  # in prompt order
    gates: list[tuple[str, list[str]]] = field(default_factory=list)  # (gate tool, guarded tools)
    confirm_before: set[str] = field(default_factory=set)
    retry_on_timeout: set[str] = field(default_factory=set)
    private: set[str] = field(default_factory=set)  # field / object names never shown
    policies: list[tuple[str, str]] = field(default_factory=list)  # (id, text) of clause lines that are not steps

    def root(self) -> str | None:
        """The step the tree starts at: no way in but back edges, reaches most ids, most branches, first.

        Reach counts every id a step leads to, described or not, so a tree with a step left out
        (a mutant) still starts where it did.
        """
        if not self.steps:
            return None
        order = list(self.steps)

        def reach(start: str) -> set[str]:
            seen, todo = set(), [start]
            while todo:
                cur = todo.pop()
                if cur in seen:
                    continue
                seen.add(cur)
                if cur in self.steps:
                    todo += [n for _, n in self.steps[cur].branches]
            return seen

        reaches = {s: reach(s) for s in order}
        incoming = {s: 0 for s in order}
        for src in order:
            for _, nxt in self.steps[src].branches:
                if nxt in incoming and nxt != src and src not in reaches[nxt]:  # back edges do not count
                    incoming[nxt] += 1
        return min(order, key=lambda s: (incoming[s], -len(reaches[s]), -len(self.steps[s].branches), order.index(s)))


def _names(text: str) -> list[str]:
    return [p.strip().strip(".") for p in re.split(r",|\band\b", text) if p.strip().strip(".")]


def parse_step(node_id: str, text: str) -> Step:
    step = Step(node_id=node_id, text=text)
    if "branches:" in text.lower():
        tail = text[text.lower().index("branches:") + len("branches:"):]
        step.branches = [(c.strip(), n) for c, n in _BRANCH.findall(tail)]
    if m := _TOOLS.search(text):
        step.tools = _names(m.group(1))
    if m := _ASK.search(text):
        step.ask_fields, step.ask_decision = _names(m.group(1)), m.group(2) or ""
    if m := _MUST.search(text):
        step.must_have = _names(m.group(1))
    if m := _MISSING.search(text):
        step.missing_decision = m.group(2)
    return step


def is_step(step: Step) -> bool:
    return bool(step.branches or step.tools or step.ask_fields or step.must_have)


def parse_rules(system_prompt: str, tool_descriptions: dict[str, str]) -> Rules:
    rules = Rules()
    tools = [t for t in tool_descriptions if t]
    clauses: list[tuple[str, str]] = []
    for line in system_prompt.splitlines():
        if m := _CLAUSE.match(line):
            clauses.append((m.group(1), m.group(2)))
    targets = {n for _, text in clauses for _, n in _BRANCH.findall(text)}
    for clause_id, text in clauses:
        step = parse_step(clause_id, text)
        if is_step(step) or clause_id in targets:
            rules.steps[clause_id] = step  # a later line for the same id (an edit) supersedes the earlier
        else:
            rules.policies.append((clause_id, text))
    texts = [system_prompt, *tool_descriptions.values()]
    for text in texts:
        for sentence in _SENTENCE.split(text):
            _sentence_rules(sentence, tools, rules)
    return rules


def _sentence_rules(sentence: str, tools: list[str], rules: Rules) -> None:
    low = sentence.lower()
    named = [t for t in tools if t in sentence]
    cut = low.find(" before ")
    if cut >= 0 and named:
        before = [t for t in named if sentence.find(t) < cut]
        after = [t for t in named if sentence.find(t) > cut]
        if before and after and (before[0], after) not in rules.gates:
            rules.gates.append((before[0], after))
        elif after and "confirm" in low[:cut]:
            rules.confirm_before |= set(after)
    if "retr" in low and "timeout" in low:
        rules.retry_on_timeout |= set(named)
    if ("never reveal" in low or "never show" in low or "refuse requests for" in low
            or "must never be shown" in low):
        rules.private |= {w for w in words(sentence) if len(w) >= 3} - {"never", "reveal", "refuse", "requests",
                                                                           "for", "any", "values", "from", "the",
                                                                           "tool", "output", "object", "show",
                                                                           "shown", "such", "data", "must"}
