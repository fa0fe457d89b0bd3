"""The offline tester knows nothing of the agent under test (issue 11, item 1).

A string literal in ``src/adat/offline`` must not share a run of five or more words
(case-insensitive) with the reference agent's rules (``data/reference/retail/rules.yaml``), the
fault packs (``catalogs/faults/**``) or the string literals of ``src/adat_reference/agent``.
Phrases any tester would use may be listed, each with its reason, in
``tester_blindness_allowlist.yaml`` beside this test — never a reason, value, id or sentence of
this agent.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = ROOT / "src" / "adat" / "offline"
AGENT = ROOT / "src" / "adat_reference" / "agent"
ALLOWLIST = Path(__file__).with_name("tester_blindness_allowlist.yaml")
RUN = 5
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


_REGEX_NOISE = re.compile(r"\[[^\]]*\]|\\[a-zA-Z]")  # character classes and escapes of a pattern are no words


def words(text: str) -> list[str]:
    return _WORD.findall(_REGEX_NOISE.sub(" ", text.lower()))


def runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal; an f-string's constant parts, each on its own."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((node.lineno, node.value))
    return out


def agent_runs() -> set[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()
    sources = [ROOT / "data" / "reference" / "retail" / "rules.yaml",
               *sorted(p for p in (ROOT / "catalogs" / "faults").rglob("*") if p.is_file())]
    for path in sources:
        found |= runs(path.read_text(encoding="utf-8"))
    for path in sorted(AGENT.rglob("*.py")):
        for _, text in literals(path):
            found |= runs(text)
    return found


def allowed_runs() -> set[tuple[str, ...]]:
    entries = yaml.safe_load(ALLOWLIST.read_text(encoding="utf-8")) or []
    allowed: set[tuple[str, ...]] = set()
    for entry in entries:
        assert entry.get("reason", "").strip(), f"allowlist phrase {entry.get('phrase')!r} needs a reason"
        allowed |= runs(entry["phrase"])
    return allowed


def shared_runs() -> dict[str, list[str]]:
    """Offline literal -> the agent's five-word runs it repeats (allowlisted runs left out)."""
    agent, allowed = agent_runs(), allowed_runs()
    hits: dict[str, list[str]] = {}
    for path in sorted(OFFLINE.rglob("*.py")):
        for line, text in literals(path):
            shared = sorted(" ".join(r) for r in runs(text) & agent - allowed)
            if shared:
                hits[f"{path.relative_to(ROOT)}:{line}"] = shared
    return hits


def test_offline_literals_share_no_five_word_run_with_the_agent() -> None:
    assert shared_runs() == {}


def test_the_check_sees_a_copied_sentence(tmp_path: Path) -> None:
    # The detector itself: a rule sentence copied into a literal is found, a paraphrase is not.
    agent = agent_runs()
    copied = "I can only cancel orders whose status is pending"
    assert runs(copied) & agent
    assert not runs("a request the agent turned down, asked again in other words") & agent


def test_allowlist_entries_are_short_and_reasoned() -> None:
    entries = yaml.safe_load(ALLOWLIST.read_text(encoding="utf-8")) or []
    assert len(entries) <= 15
    for entry in entries:
        assert len(words(entry["phrase"])) <= 8 and entry["reason"].strip()


def test_the_agent_sources_are_where_the_check_reads_them() -> None:
    # a moved package would leave AGENT empty and the check above vacuously green
    sources = sorted(AGENT.rglob("*.py"))
    assert (AGENT / "agent.py") in sources and len(sources) >= 10
    assert sum(len(literals(p)) for p in sources) > 100
