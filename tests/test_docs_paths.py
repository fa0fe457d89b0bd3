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
