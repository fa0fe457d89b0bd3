"""Text helpers shared by the offline TDAD roles: words, stems, branch conditions, field values.

Nothing here knows a spec: conditions are parsed from their text (``a.b == value``,
``a.b != 'quoted value'``, ``x > y``, ``otherwise``; atoms joined by ``and``, alternatives by
``or``, ``and`` binding tighter), fields are found in user text as ``<name> <value>``,
``<name>: <value>``, ``my <name> is <value>`` or, for ``<x>_id``, ``<x> #<value>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9]+")
_VALUE = r"'[^']*'|\"[^\"]*\"|[\w.\-]+"
_ATOM = re.compile(rf"^\s*([A-Za-z_][\w.]*)\s*(==|!=|>=|<=|>|<)\s*({_VALUE})\s*(.*)$")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
#: names of loop counters: how often the step's tool was called (``login_attempts``) or retried
_COUNTER = re.compile(r"(?:^|_)(?:count|counter|attempts?|tries|retries)$")
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
    rhs: str  # without quotes; ``quoted`` says it was a string literal
    rest: str = ""
    quoted: bool = False

    @property
    def name(self) -> str:
        return self.lhs.rsplit(".", 1)[-1]

    @property
    def prefix(self) -> str:
        return self.lhs.rsplit(".", 1)[0] if "." in self.lhs else ""

    @property
    def value(self) -> bool | int | float | str:
        """The right-hand side as a value: a quoted literal stays a string."""
        return self.rhs if self.quoted else literal(self.rhs)

    @property
    def is_error(self) -> bool:
        """``fetch.error == 'unreachable'``: how the step's tool call failed, not a field of its output."""
        return self.name in ("error", "failure") or self.name.endswith("_error")

    @property
    def is_counter(self) -> bool:
        """``retries >= 1`` / ``login_attempts < 3``: a loop counter of the step's tool."""
        return bool(_COUNTER.search(self.name))

    @property
    def counts_retries(self) -> bool:
        return "retr" in self.name


def _split(text: str, word: str) -> list[str]:
    # split on a keyword outside quoted literals ('out of stock or lost' stays one value)
    masked = _QUOTED.sub(lambda m: "\0" * len(m.group(0)), text)
    cuts = [m.span() for m in re.finditer(rf"\s+{word}\s+", masked)]
    parts, start = [], 0
    for a, b in cuts:
        parts.append(text[start:a])
        start = b
    return [*parts, text[start:]]


def parse_alternatives(when: str) -> list[list[Atom]] | None:
    """``when`` as alternatives (any may hold) of atoms (all must hold); ``[[]]`` for
    ``otherwise``; None if any part is unparsable."""
    text = " ".join(when.split())
    if text.lower() in ("otherwise", "else", "default", "always"):
        return [[]]
    alternatives = []
    for alternative in _split(text, "or"):
        atoms = []
        for part in _split(alternative, "and"):
            m = _ATOM.match(part)
            if not m:
                return None
            rhs = m.group(3)
            quoted = rhs[:1] in ("'", '"')
            atoms.append(Atom(m.group(1), m.group(2), rhs[1:-1] if quoted else rhs, m.group(4).strip(), quoted))
        alternatives.append(atoms)
    return alternatives


def parse_condition(when: str) -> list[Atom] | None:
    """The atoms of ``when`` (all must hold); ``[]`` for ``otherwise``; None if unparsable or a
    disjunction (use :func:`parse_alternatives` for those)."""
    alternatives = parse_alternatives(when)
    return alternatives[0] if alternatives is not None and len(alternatives) == 1 else None


def condition_atoms(when: str) -> list[Atom]:
    """Every atom ``when`` names, in any alternative."""
    return [a for alt in parse_alternatives(when) or [] for a in alt]


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
