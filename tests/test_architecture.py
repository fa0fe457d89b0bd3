"""House rules that keep the layers apart (STYLE.md): checked, not just written down."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "adat"
ROOT = SRC.parents[1]
#: the offline stand-in: a package of its own, loaded as the ``adat.providers`` plugin ``offline``
STAND_IN = ROOT / "src" / "adat_offline"


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


#: what the stand-in may import of adat: the role contracts, the LLM wire types, the shared records
STAND_IN_MAY_IMPORT = ("adat.contracts", "adat.llm.types", *(f"adat.{n.removesuffix('.py')}" for n in SHARED_RECORDS))


def _allowed(module: str, allowed: tuple[str, ...]) -> bool:
    return any(module == a or module.startswith(a + ".") for a in allowed)


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def _names_the_stand_in(path: Path) -> list[str]:
    """How ``path`` reaches ``adat_offline``: an import of it, or a string naming it outside a
    docstring (``importlib.import_module("adat_offline...")``, an ``"adat_offline.x:Y"`` spec)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs, found = _docstrings(tree), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == STAND_IN.name]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [node.module] if node.module.split(".")[0] == STAND_IN.name else []
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
              and STAND_IN.name in node.value):
            found.append(f"string {node.value!r}")
    return found


def _real_path() -> list[Path]:
    return sorted([*SRC.rglob("*.py"), *(ROOT / "flows").rglob("*.py"), *(ROOT / "tasks").rglob("*.py")])


def test_the_real_path_never_imports_the_stand_in() -> None:
    # The registry finds it as a plugin (entry point group adat.providers), never by name.
    offenders = {str(p.relative_to(ROOT)): _names_the_stand_in(p) for p in _real_path() if _names_the_stand_in(p)}
    assert offenders == {}


def test_the_stand_in_imports_only_the_contracts_llm_types_and_shared_records() -> None:
    files = sorted(STAND_IN.rglob("*.py"))
    assert len(files) >= 20 and (STAND_IN / "provider.py") in files
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in _adat_modules(p) if not _allowed(m, STAND_IN_MAY_IMPORT))
                 for p in files}
    assert {k: v for k, v in offenders.items() if v} == {}
    # and nothing behind the static imports' back
    dynamic = [str(p.relative_to(ROOT)) for p in files if {"importlib", "builtins"} & _imports(p)
               or "__import__" in p.read_text(encoding="utf-8")]
    assert dynamic == []


def test_the_contracts_import_no_pipeline() -> None:
    # What the stand-in may import must not pull the real path in behind it.
    allowed = ("adat.contracts", *(f"adat.{n.removesuffix('.py')}" for n in SHARED_RECORDS))
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in _adat_modules(p) if not _allowed(m, allowed))
                 for p in sorted((SRC / "contracts").rglob("*.py"))}
    assert {k: v for k, v in offenders.items() if v} == {}
