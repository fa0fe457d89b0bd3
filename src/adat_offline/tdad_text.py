"""Text helpers shared by the offline TDAD roles: words, stems, branch conditions, field values.

Nothing here knows a spec: conditions are parsed from their text (``a.b == value``, ``x > y``,
``otherwise``, joined by ``and``), fields are found in user text as ``<name> <value>``,
``<name>: <value>``, ``my <name> is <value>`` or, for ``<x>_id``, ``<x> #<value>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9]+")
_ATOM = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(==|!=|>=|<=|>|<)\s*([\w.\-]+)\s*(.*)$")
_STOP = frozenset(["a", "an", "and", "the", "to", "of", "for", "in", "on", "at", "is", "are", "my", "me", "i", "you", "your", "it", "this", "that", "be", "with", "as", "or", "please", "can", "could", "would", "want", "need", "help", "do", "what", "when", "how"])
AFFIRMATIVE = ("yes", "yeah", "yep", "confirm", "go ahead", "do it", "sure", "proceed", "definitely")
NEGATIVE = ("no", "nope", "don't", "do not", "stop", "wait", "nevermind", "never mind", "changed my mind")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " "))


def stems(text: str) -> set[str]:
    """Content words cut to 4 letters ('billing' and 'bill' meet), stop words left out."""
    return {w[:4] for w in words(text) if w not in _STOP and not w.isdigit()}


def overlap(a: str, b: str) -> int:
    return len(stems(a) & stems(b))


@dataclass(frozen=True)
class Atom:
    """One comparison of a branch condition; ``rest`` is trailing text (``after clarify``)."""

    lhs: str
    op: str
    rhs: str
    rest: str = ""

    @property
    def name(self) -> str:
        return self.lhs.rsplit(".", 1)[-1]

    @property
    def prefix(self) -> str:
        return self.lhs.rsplit(".", 1)[0] if "." in self.lhs else ""


def parse_condition(when: str) -> list[Atom] | None:
    """The atoms of ``when`` (all must hold); ``[]`` for ``otherwise``; None if unparsable."""
    text = " ".join(when.split())
    if text.lower() in ("otherwise", "else", "default", "always"):
        return []
    atoms = []
    for part in re.split(r"\s+and\s+", text):
        m = _ATOM.match(part)
        if not m:
            return None
        atoms.append(Atom(m.group(1), m.group(2), m.group(3), m.group(4).strip()))
    return atoms


def literal(value: str) -> bool | int | float | str:
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        return value


def field_keys(name: str) -> list[str]:
    """How a user may name a field: ``order_id`` -> order_id, order id, order."""
    keys = [name, name.replace("_", " ")]
    if name.endswith("_id"):
        keys.append(name[:-3].replace("_", " "))
    return list(dict.fromkeys(keys))


def find_field(name: str, text: str) -> str | None:
    """The value the user gave for ``name`` in ``text`` (see the module docstring)."""
    for key in field_keys(name):
        k = re.escape(key)
        m = re.search(rf"\b{k}\b\s*(?:is\s+|:\s*|=\s*|#)?\s*#?([A-Za-z0-9][\w\-./@]*)", text, flags=re.IGNORECASE)
        if m:
            value = m.group(1).rstrip(".,;")
            if name.endswith("_id") and not any(ch.isdigit() for ch in value):
                continue
            if value.lower() in _STOP:
                continue
            return value
    return None


def says(text: str, phrases: tuple[str, ...]) -> bool:
    low = f" {' '.join(words(text.replace(chr(39), '')))} "
    return any(f" {' '.join(words(p.replace(chr(39), '')))} " in low for p in phrases)


def confirmation(text: str) -> str:
    """``yes`` / ``no`` / ``unclear`` for a user's answer to a confirmation question."""
    if says(text, NEGATIVE):
        return "no"
    if says(text, AFFIRMATIVE):
        return "yes"
    return "unclear"


def _id_words(node_id: str) -> list[str]:
    # Node ids look like N2_AUTH / END_REFUSE_PII: the step number and END say nothing.
    return [w for w in words(node_id) if w != "end" and not (len(w) <= 3 and any(c.isdigit() for c in w))]


def decisions_for(node_id: str, decisions: list[str], description: str = "") -> list[str]:
    """The decisions a node's id names best (whole words count double); [] when none shares a word."""
    mine = _id_words(node_id)
    scored = []
    for decision in decisions:
        theirs = words(decision)
        exact = len(set(mine) & set(theirs))
        loose = len({w[:4] for w in mine} & {w[:4] for w in theirs})
        scored.append((2 * exact + loose, decision))
    best = max((s for s, _ in scored), default=0)
    if best == 0 and description:
        return decisions_for(node_id + " " + description, decisions) if description else []
    return [d for s, d in scored if s == best and s > 0]
