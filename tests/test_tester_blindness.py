"""The offline tester knows nothing of the agent under test (issue 11, item 1).

A string literal of the tester code -- the offline stand-in (``src/adat_offline``, a package of
its own) and the role contracts its inputs come from (``src/adat/contracts``) -- must not share a
run of five or more words
(case-insensitive) with the reference agent's rules (``data/reference/retail/rules.yaml``), the
fault packs (``catalogs/faults/**``) or the string literals of ``src/adat_reference/agent``.
Phrases any tester would use may be listed, each with its reason, in
``tester_blindness_allowlist.yaml`` beside this test — never a reason, value, id or sentence of
this agent.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import yaml

from adat.llm.providers.provider_registry import plugins

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = ROOT / "src" / "adat_offline"
#: the tester code the check reads: the stand-in and the role contracts
TESTER = (OFFLINE, ROOT / "src" / "adat" / "contracts")
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


def scanned_files(roots: tuple[Path, ...] = TESTER) -> list[Path]:
    return sorted(path for root in roots for path in root.rglob("*.py"))


def shared_runs(roots: tuple[Path, ...] = TESTER) -> dict[str, list[str]]:
    """Tester literal -> the agent's five-word runs it repeats (allowlisted runs left out)."""
    agent, allowed = agent_runs(), allowed_runs()
    hits: dict[str, list[str]] = {}
    for root in roots:
        for path in scanned_files((root,)):
            for line, text in literals(path):
                shared = sorted(" ".join(r) for r in runs(text) & agent - allowed)
                if shared:
                    hits[f"{path.relative_to(root.parent)}:{line}"] = shared
    return hits


def test_offline_literals_share_no_five_word_run_with_the_agent() -> None:
    assert shared_runs() == {}


def test_the_check_sees_a_copied_sentence(tmp_path: Path) -> None:
    # The detector itself: a rule sentence copied into a literal is found, a paraphrase is not.
    agent = agent_runs()
    copied = "I can only cancel orders whose status is pending"
    assert runs(copied) & agent
    assert not runs("a request the agent turned down, asked again in other words") & agent


def test_the_check_reads_the_stand_in_where_it_lives(tmp_path: Path) -> None:
    # A moved stand-in must not leave the check reading an empty folder: it reads every module of
    # the package the registry loads, and a rule sentence planted in a copy of it is found.
    module = plugins()["offline"].module  # what the registry imports for offline/heuristic
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None and Path(spec.origin).parent == OFFLINE
    names = {p.name for p in scanned_files()}
    assert {"provider.py", "planning.py", "judging.py", "transformations.py", "adat2_roles.py"} <= names
    assert len([p for p in scanned_files() if p.is_relative_to(OFFLINE)]) >= 20
    copy = tmp_path / "adat_offline"
    copy.mkdir()
    (copy / "provider.py").write_text((OFFLINE / "provider.py").read_text(encoding="utf-8")
                                      + '\nSAID = "I can only cancel orders whose status is pending"\n')
    hits = shared_runs((copy,))
    assert len(hits) == 1 and next(iter(hits)).startswith("adat_offline/provider.py:")


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


# --- TDAD specs: the stand-in's TDAD side names nothing of the specs it is measured on -----------
TDAD_CASES = (ROOT / "benchmarks" / "cases" / "tdad", ROOT / "tests" / "fixtures" / "tdad_meterdesk")
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")  # snake_case / UPPER_CASE ids


def tdad_case_identifiers() -> set[str]:
    """Compound ids (tools, decisions, node ids, intents, enum values, fields) of the TDAD cases
    and the shipped benchmark specs: what a stand-in tuned to them would have to spell out."""
    found: set[str] = set()
    shipped = ROOT.parent / "shared" / "benchmarks" / "tdad"
    for root in (*TDAD_CASES, shipped):
        for path in sorted(root.rglob("*.yaml")) if root.is_dir() else []:
            found |= {m.lower() for m in _IDENT.findall(path.read_text(encoding="utf-8"))}
    return found


#: ids of the TDAD spec shape itself (the paper's respond contract, test families, assertion kinds,
#: failure modes) and field names any shop has: every spec may use them, a tester must know them
TDAD_SHAPE = {"node_id", "tool_actions", "user_message", "boundary_values", "tool_output_metamorphic", "auth_gate",
              "not_found", "postal_code", "order_id"}


def test_offline_literals_name_no_tdad_case_identifier() -> None:
    ids = tdad_case_identifiers() - TDAD_SHAPE
    assert {"track_parcel", "end_redirected", "confirm_holder", "held_at_depot"} <= ids  # the check reads the cases
    hits = {f"{path.relative_to(ROOT)}:{line}": sorted(set(_IDENT.findall(text.lower())) & ids)
            for path in scanned_files((OFFLINE,)) if path.name.startswith("tdad_")
            for line, text in literals(path) if set(_IDENT.findall(text.lower())) & ids}
    assert hits == {}


def test_offline_literals_share_no_five_word_run_with_the_tdad_cases() -> None:
    # the stand-in's TDAD roles (tdad_*.py) quote no sentence of a case spec, prompt or pack
    case_runs: set[tuple[str, ...]] = set()
    for root in TDAD_CASES:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".yaml", ".txt"):
                case_runs |= runs(path.read_text(encoding="utf-8"))
    hits = {f"{path.relative_to(ROOT)}:{line}": sorted(" ".join(r) for r in runs(text) & case_runs)
            for path in scanned_files((OFFLINE,)) if path.name.startswith("tdad_")
            for line, text in literals(path) if runs(text) & case_runs}
    assert hits == {}
