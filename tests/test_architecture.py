"""House rules that keep the layers apart (STYLE.md): checked, not just written down."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "adat"
ROOT = SRC.parents[1]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_library_never_imports_prefect_flows_or_tasks() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"prefect", "flows", "tasks"})
                 for p in SRC.rglob("*.py") if _imports(p) & {"prefect", "flows", "tasks"}}
    assert offenders == {}


def test_only_config_reads_the_environment() -> None:
    readers = []
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "os.environ.get(" in text or "os.getenv(" in text or "os.environ[" in text:
            readers.append(str(path.relative_to(SRC)))
    assert readers == ["config.py"]


def test_tasks_import_no_flows() -> None:
    for path in (ROOT / "tasks").glob("*.py"):
        assert "flows" not in _imports(path), path


def _adat_modules(path: Path) -> set[str]:
    """Every ``adat.…`` module ``path`` imports (absolute imports; ``from adat import x`` as ``adat.x``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("adat.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "adat":
                names |= {f"adat.{alias.name}" for alias in node.names}
            elif node.module.startswith("adat."):
                names.add(node.module)
    return names


#: the shared records: every pipeline's rows derive from them, so they import no pipeline
SHARED_RECORDS = ("records.py", "record_base.py", "spec_records.py")


def test_shared_records_import_no_pipeline() -> None:
    allowed = {f"adat.{name.removesuffix('.py')}" for name in SHARED_RECORDS}
    offenders = {name: sorted(_adat_modules(SRC / name) - allowed) for name in SHARED_RECORDS
                 if _adat_modules(SRC / name) - allowed}
    assert offenders == {}


#: duplicate basenames other renames in flight remove (wings-offline: offline/judging.py; wings-reference:
#: agents/reference/identity.py; libs: report.py, factory.py, registry.py, spec.py); shrink, never grow
DUPLICATES_BEING_RENAMED = {"factory.py", "identity.py", "judging.py", "registry.py", "report.py", "spec.py"}


def test_no_two_modules_share_a_basename() -> None:
    seen: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(str(path.relative_to(SRC)))
    shared = {name: paths for name, paths in seen.items() if len(paths) > 1 and name not in DUPLICATES_BEING_RENAMED}
    assert shared == {}, "modules sharing a basename make a reader open both"
