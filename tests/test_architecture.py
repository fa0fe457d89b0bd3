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
    """Through its pydantic-settings class: no module calls os.environ.get / os.getenv or reads .env itself."""
    direct, settings = [], []
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "os.environ.get(" in text or "os.getenv(" in text or "os.environ[" in text or "dotenv" in _imports(path):
            direct.append(str(path.relative_to(SRC)))
        if "pydantic_settings" in _imports(path):
            settings.append(str(path.relative_to(SRC)))
    assert direct == []
    assert settings == ["config.py"]


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
# --- the agent under test is not the tester (issue #26) ------------------------------------------
REFERENCE = ROOT / "src" / "adat_reference"
#: all ``adat_reference`` may import of ``adat``: the target protocol and plugin protocols it keeps,
#: the records and errors it reports, its shipped files (config paths, YAML reading), and the
#: LLM plumbing the llm-agent host runs on
REFERENCE_MAY_IMPORT = {
    "adat.config",  # shipped file paths (rules, faults, db.json), the target config sections
    "adat.errors",  # UserError / TargetError / ToolError
    "adat.records",  # RuleEvent (side log rows), TestCase (the fact check)
    "adat.yaml_io",  # reading rules and fault files once per content
    "adat.targets.base",  # the Target protocol
    "adat.targets.plugins",  # the plugin protocols (type-checked only)
    "adat.targets.hosting",  # the llm-agent's session store and model call
    "adat.llm.types",  # the llm-agent's tool calls
    "adat.llm.client",  # the llm-agent's LLM client
}
_IMPORTERS = {"import_module", "__import__", "find_spec", "resolve_name", "EntryPoint"}


def _names_module(text: str, package: str) -> bool:
    """Whether a string names ``package`` or a module in it (``pkg``, ``pkg.mod``, ``pkg.mod:attr``)."""
    return text == package or text.startswith((f"{package}.", f"{package}:"))


def _module_refs(path: Path) -> set[str]:
    """Every module ``path`` imports, as ``import`` statements or as a string handed to an importer
    (``importlib.import_module("x")``, ``__import__``, ``find_spec``, ``pkgutil.resolve_name``,
    an ``EntryPoint``) — relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT / "src").with_suffix("").parts[:-1]) if path.is_relative_to(ROOT / "src") else ""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            names |= {f"{base}.{alias.name}" for alias in node.names} | {base}
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in _IMPORTERS:
                names |= {arg.value for arg in [*node.args, *(k.value for k in node.keywords)]
                          if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}
    return names


def _reference_refs(path: Path) -> list[str]:
    return sorted(n for n in _module_refs(path) if _names_module(n, "adat_reference"))


def test_the_tester_never_imports_the_agent_under_test() -> None:
    """src/adat reaches adat_reference only through the ``adat.targets`` entry points."""
    offenders = {str(p.relative_to(ROOT)): _reference_refs(p) for p in SRC.rglob("*.py") if _reference_refs(p)}
    assert offenders == {}


def test_the_check_sees_statements_relative_imports_and_importlib_strings(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    cases = {"import adat_reference.agent\n": ["adat_reference.agent"],
             "from adat_reference.retail import RetailDB\n": ["adat_reference.retail", "adat_reference.retail.RetailDB"],
             "import importlib\nimportlib.import_module('adat_reference.target')\n": ["adat_reference.target"],
             "__import__(name='adat_reference')\n": ["adat_reference"],
             "from importlib.metadata import EntryPoint\nEntryPoint('r', 'adat_reference.target:REFERENCE', 'g')\n":
                 ["adat_reference.target:REFERENCE"],
             "x = 'adat_reference is only a word in this text'\n": []}
    for source, expected in cases.items():
        probe.write_text(source, encoding="utf-8")
        assert _reference_refs(probe) == expected, source


def test_the_agent_under_test_imports_only_the_target_protocol_and_records() -> None:
    offenders = {}
    for path in REFERENCE.rglob("*.py"):
        tester = {n for n in _module_refs(path) if _names_module(n, "adat")}
        # ``from adat.x import Name`` yields adat.x and adat.x.Name: a name counts as its module
        extra = {n for n in tester if n not in REFERENCE_MAY_IMPORT
                 and n.rsplit(".", 1)[0] not in REFERENCE_MAY_IMPORT and n != "adat"}
        if extra:
            offenders[str(path.relative_to(ROOT))] = sorted(extra)
    assert offenders == {}


def test_the_built_in_agents_are_registered_as_target_plugins() -> None:
    """pyproject.toml's ``adat.targets`` group names every kind the plugins module builds."""
    import tomllib

    group = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]["adat.targets"]
    assert group == {"reference": "adat_reference.target:REFERENCE", "llm-agent": "adat_reference.target:LLM_AGENT"}


def test_no_module_of_the_agent_shares_a_basename_with_one_of_the_tester() -> None:
    """A reader of a traceback or a grep hit knows which side a module is on from its name."""
    tester = {p.name for p in SRC.rglob("*.py")} - {"__init__.py"}
    agent = {p.name for p in REFERENCE.rglob("*.py")} - {"__init__.py"}
    assert len(agent) > 10 and tester & agent == set()

# --- plumbing by library (issue #26 item 7): no hand-written HTTP servers/clients or retry loops ---

_LIBRARY_FOR = {"urllib.request": "httpx", "http.server": "uvicorn + Starlette (adat.serving.BackgroundServer)",
                "socketserver": "uvicorn + Starlette (adat.serving.BackgroundServer)"}


def _plumbing_imports(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in _LIBRARY_FOR}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {m for m in (node.module, *(f"{node.module}.{a.name}" for a in node.names)) if m in _LIBRARY_FOR}
    return found


def test_the_plumbing_check_sees_every_import_form() -> None:
    planted = "import urllib.request\nfrom http.server import BaseHTTPRequestHandler\nfrom urllib import request\n"
    assert _plumbing_imports(planted) == {"urllib.request", "http.server"}
    assert _plumbing_imports("import urllib.parse\nfrom urllib.parse import quote\n") == set()


def test_no_hand_written_http_plumbing() -> None:
    offenders = {str(p.relative_to(SRC)): sorted(f"{m} (use {_LIBRARY_FOR[m]})" for m in found)
                 for p in SRC.rglob("*.py") if (found := _plumbing_imports(p.read_text(encoding="utf-8")))}
    assert offenders == {}


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """Every node under ``body`` except inside nested functions, classes and lambdas."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _is_sleep(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name.lstrip("_").endswith("sleep")


def _swallows(handler: ast.ExceptHandler) -> bool:
    """The handler can let the loop go round again: it does not end by raising, returning or breaking
    (a ``raise`` under an ``if``, as in "give up after N attempts", still lets the other tries through)."""
    return not isinstance(handler.body[-1], ast.Raise | ast.Return | ast.Break)


def _repeats(loop: ast.While | ast.For | ast.AsyncFor) -> bool:
    """A loop that repeats one thing (``while``, ``for _ in range(n)``), not one over alternatives."""
    if isinstance(loop, ast.While):
        return True
    call = loop.iter
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"


def _retry_loops(source: str) -> list[int]:
    """Lines of loops that retry by hand: a ``try`` whose handler swallows the exception, in a loop
    that either sleeps (backoff) or leaves on success from inside the ``try`` (attempt-until-it-works).

    A scanner that catches a parse error and advances (``pos += 1; continue``) is neither.
    """
    lines = []
    for loop in ast.walk(ast.parse(source)):
        if not isinstance(loop, ast.While | ast.For | ast.AsyncFor):
            continue
        body = _own_nodes(loop.body)
        for attempt in (n for n in body if isinstance(n, ast.Try)):
            if not any(_swallows(h) for h in attempt.handlers):
                continue
            sleeps = any(_is_sleep(n) for n in body)
            leaves_on_success = _repeats(loop) and any(
                isinstance(n, ast.Return | ast.Break) for n in _own_nodes(attempt.body + attempt.orelse))
            if sleeps or leaves_on_success:
                lines.append(loop.lineno)
                break
    return lines


_PLANTED_RETRIES = ['''
def send(self, request):
    attempt = 0
    while True:
        try:
            return self.provider.complete(request)
        except TransientError as exc:
            if attempt >= self.max_retries:
                raise GaveUp(exc) from None
            attempt += 1
            self._sleep(self._backoff(attempt))
            continue
''', '''
def call(f):
    while True:
        try:
            return f()
        except OSError:
            time.sleep(1)
''', '''
def call(f):
    for attempt in range(3):
        try:
            result = f()
            break
        except TimeoutError:
            continue
    return result
''', '''
async def call(f):
    for _ in range(5):
        try:
            await f()
        except Exception as exc:
            log(exc)
        await asyncio.sleep(0.5)
''']

_LEGITIMATE_LOOPS = ['''
def scan(text):
    pos = 0
    while True:
        try:
            value, end = decode(text, pos)
        except ValueError:
            pos += 1
            continue
        pos = end
''', '''
def wait(server):
    while not server.started:
        time.sleep(0.05)
''', '''
def first(paths):
    for path in paths:
        try:
            return read(path)
        except OSError:
            continue
    raise UserError(paths)
''']


def test_the_retry_loop_check_catches_planted_loops_and_spares_legitimate_ones() -> None:
    assert [bool(_retry_loops(src)) for src in _PLANTED_RETRIES] == [True] * 4
    assert [bool(_retry_loops(src)) for src in _LEGITIMATE_LOOPS] == [False, False, False]


def test_no_hand_written_retry_loop() -> None:
    """Retries go through tenacity (adat.llm.client, adat.targets.http), not a loop that catches and retries."""
    offenders = {str(p.relative_to(SRC)): lines for p in SRC.rglob("*.py")
                 if (lines := _retry_loops(p.read_text(encoding="utf-8")))}
    assert offenders == {}


def test_no_two_modules_share_a_basename() -> None:
    """A name says what a module is without opening it: two ``run_figures.py`` make a reader open both."""
    seen: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(str(path.relative_to(SRC)))
    shared = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert shared == {}
