"""docs/architecture.md names files and modules; each must exist, so the page cannot go stale silently.

Checked on that page only (other docs pages keep their own history). What counts as a name:

* a path under ``src/``, ``flows/``, ``tasks/``, ``sql/``, ``tests/`` or ``benchmarks/`` (a
  ``<placeholder>`` or ``*`` must match at least one file);
* a bare ``.py`` / ``.sql`` file name or partial path (``stage_registry.py``,
  ``evaluation/evaluation_steps.py``): some file of the repository must end with it;
* a dotted module name of the three packages (``adat.engine.context.end_run_row``): the longest
  prefix that is a module must exist and define the rest's first name.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
ROOTS = ("src", "flows", "tasks", "sql", "tests", "benchmarks")

_PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(ROOTS) + r")/[\w./<>*-]*[\w>*/])")
_FILE = re.compile(r"(?<![\w./<>-])([\w/-]+\.(?:py|sql))\b")
_MODULE = re.compile(r"(?<![\w./-])((?:adat|adat_offline|adat_reference)(?:\.\w+)+)")


def _repo_files() -> list[str]:
    return [p.relative_to(ROOT).as_posix() for r in ROOTS for p in (ROOT / r).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts]


def _path_exists(path: str) -> bool:
    pattern = re.sub(r"<[^>]*>", "*", path).rstrip("/")
    if "*" in pattern:
        return any(ROOT.glob(pattern))
    return (ROOT / pattern).exists()


def _module_file(dotted: str) -> Path | None:
    base = ROOT / "src" / Path(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defines(module: Path, name: str) -> bool:
    text = module.read_text(encoding="utf-8")
    if module.name == "__init__.py" and (module.parent / name).exists():
        return True
    return re.search(rf"^\s*(?:def|class)\s+{name}\b|^{name}\s*[:=]|^\s*(?:from\s+\S+\s+)?import\s.*\b{name}\b",
                     text, re.M) is not None


def _module_resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = _module_file(".".join(parts[:cut]))
        if module is not None:
            return cut == len(parts) or _defines(module, parts[cut])
    return False


def _entry_point_groups() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["entry-points"])


def stale_names(text: str) -> list[str]:
    """Every file or module ``text`` names that does not exist in the repository."""
    files = _repo_files()
    stale = [p for p in sorted(set(_PATH.findall(text))) if not _path_exists(p)]
    for name in sorted(set(_FILE.findall(text))):
        if name.split("/")[0] in ROOTS or (ROOT / name).is_file():
            continue  # a rooted path is checked above; a file at the top (setup.py)
        if not any(f == name or f.endswith("/" + name) for f in files):
            stale.append(name)
    groups = _entry_point_groups()
    stale += [m for m in sorted(set(_MODULE.findall(text))) if m not in groups and not _module_resolves(m)]
    return stale


def test_every_file_and_module_the_architecture_page_names_exists() -> None:
    assert stale_names(PAGE.read_text(encoding="utf-8")) == []


def test_the_check_catches_stale_names() -> None:
    planted = ("`src/adat/pipeline/steps.py`, `tasks/pipeline_tasks.py`, `src/adat/offline`, "
               "`pipeline/context.py`, `sql/metrics/<none>_nothing.sql`, `adat.pipeline.fingerprint`, "
               "`adat.engine.context.no_such_function`")
    assert sorted(stale_names(planted)) == sorted([
        "src/adat/offline", "src/adat/pipeline/steps.py", "sql/metrics/<none>_nothing.sql",
        "tasks/pipeline_tasks.py", "pipeline/context.py", "adat.engine.context.no_such_function",
        "adat.pipeline.fingerprint"])
    kept = ("`src/adat/engine/stage_registry.py`, `sql/metrics/validity_rate.sql`, `stage_runner.py`, "
            "`evaluation/evaluation_steps.py`, `catalogs/prompts/<id>.yaml`, `adat.engine.context.end_run_row`, "
            "`adat.providers`, `setup.py`, `tests/test_architecture.py`")
    assert stale_names(kept) == []


def record_walk(text: str) -> list[tuple[str, list[str]]]:
    """The rows of the page's "One record, discovery to V/C" table: each file it opens, with the
    functions and classes the row names in it (``snake_case`` with an underscore, ``CamelCase``,
    ``Class.method``); a row with an empty file cell goes on with the file above."""
    section = text.split("## One record, discovery to V/C", 1)[1].split("\n## ", 1)[0]
    rows: list[tuple[str, list[str]]] = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or cells[0] in ("#", "---"):
            continue
        names = [n for n in re.findall(r"`([A-Za-z_][\w.]*)`", cells[2])
                 if "_" in n.split(".")[0] or n[0].isupper()]
        path = re.fullmatch(r"`([^`]+)`", cells[1])
        if path and cells[0].isdigit():
            rows.append((path.group(1), names))
        elif not cells[1] and rows:
            rows[-1][1].extend(names)
    return rows


def test_the_record_walk_opens_at_most_six_files_and_names_what_they_define() -> None:
    """Issue 26: one record from the discovery trace to V/C in at most 6 files, and the page says
    which: every file of the walk exists and defines every function and class the row names."""
    walk = record_walk(PAGE.read_text(encoding="utf-8"))
    files = [path for path, _names in walk]
    assert 0 < len(files) == len(set(files)) <= 6, files
    for path, names in walk:
        assert (ROOT / path).is_file(), path
        text = (ROOT / path).read_text(encoding="utf-8")
        for name in (part for dotted in names for part in dotted.split(".")):
            assert re.search(rf"^\s*(?:def|class) {name}\b", text, re.M), f"{path} defines no {name}"
    assert files[-1] == "sql/metrics/validity_rate.sql"
    # the steps the walk names are the ones the stage registry runs, from those files
    from adat.engine.stage_registry import STAGES

    entries = {s.entry.split(":")[1]: "src/" + s.entry.split(":")[0].replace(".", "/") + ".py" for s in STAGES.values()}
    steps = [(path, n) for path, names in walk for n in names if n.endswith("_step")]
    assert {n for _p, n in steps} >= {"extraction_step", "grounding_step", "plain_generation_step", "audit_step"}
    for path, step in steps:
        assert entries.get(step) == path, (step, entries.get(step), path)
