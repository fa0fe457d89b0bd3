"""Cache keys that name everything that changes a stage's result, and nothing that doesn't.

A stage's key (:func:`stage_key`) hashes

* the **code the stage runs**: the source of its entry function, of the functions, classes and
  constants of its own module that it names (transitively), and of every ``adat`` module these
  import, transitively (parsed, so comments, docstrings and line numbers do not count);
* its **prompt files** and, where it uses them, the **instruction catalog**;
* a digest of the **target's artifacts** (:func:`target_digest`: the reference database and rule
  table, the fault file, an llm-agent's policy, an http endpoint's identity, a python factory's
  module, the auditor's artifact files);
* the **run config minus performance knobs** (:data:`PERFORMANCE_FIELDS`), and
* the task's other inputs: run id, upstream steps' digests, kind, fault, source runs.

Prefect's task-source policy covers the task the factory in ``tasks/`` made.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib.util
import json
import os
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, cast

import adat
from adat import config as shipped  # the shipped files' paths, looked up at call time (tests patch them)
from adat.config import LLMAgentTarget, PythonTarget, ReferenceTarget, RunConfig, adat_home, code_digest_store
from adat.engine.stage_registry import stage

#: config fields that change how fast a result comes, never what it is (a pydantic ``exclude``)
PERFORMANCE_FIELDS: dict[str, Any] = {
    "run_id": True, "data_dir": True,
    "llm": {"concurrency", "timeout_s", "max_retries", "backoff_base_s", "backoff_max_s", "cache", "api_key_env"},
    "execution": {"workers", "task_runner", "dask_address", "dask_workers", "dask_processes", "task_retries"},
    # a budget stops a stage (which then caches nothing); a finished stage's result does not
    # depend on it, so a larger budget resumes instead of recomputing
    "budget": True,
    # what the nightly flow runs and where its report is served: no stage reads it
    "nightly": True,
}
_PACKAGE = Path(adat.__file__).resolve().parent
#: tables of another run a stage may start from (a suite, a discovery): their parts enter the key
SOURCE_TABLES = ("traces", "rule_events", "statements", "ranked_statements", "tests", "instructions", "executions",
                 "verdicts", "process_assertions")


def _sha(parts: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:16]


# --- code ------------------------------------------------------------------------------------
def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _module_file(name: str) -> Path | None:
    if name != "adat" and not name.startswith("adat."):
        return None
    rest = name.split(".")[1:]
    if not rest:
        return _PACKAGE / "__init__.py"
    for candidate in (_PACKAGE.joinpath(*rest[:-1], rest[-1] + ".py"), _PACKAGE.joinpath(*rest, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every ``adat`` module named by an import anywhere in ``tree`` (local imports included)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                base = parts[: len(parts) - node.level + (1 if is_package else 0)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
    # a module's packages are imported with it
    prefixes = {".".join(name.split(".")[:i]) for name in out for i in range(1, name.count(".") + 2)}
    return {prefix for prefix in prefixes if _module_file(prefix) is not None}


@cache
def _parsed(name: str) -> tuple[str, frozenset[str]]:
    path = _module_file(name)
    assert path is not None
    tree = _strip_docstrings(ast.parse(path.read_text(encoding="utf-8")))
    return ast.dump(tree), frozenset(_imports(tree, name, path.name == "__init__.py"))


@cache
def code_digest(entry: str) -> str:
    """Hash of ``module:function`` and of the adat modules it imports, transitively (parsed source).

    Parsing every module a stage imports costs about a second per command, so the digests are
    kept in :func:`adat.config.code_digest_store` under a signature of the package's files
    (path, size, mtime): any edit to any module recomputes them.
    """
    signature = _package_signature()
    store = _read_store()
    known = store.get(signature, {})
    if entry in known:
        return str(known[entry])
    digest = _code_digest(entry)
    others = {k: v for k, v in store.items() if k != signature}
    kept = dict(list(others.items())[-(_STORED_SIGNATURES - 1):])  # a few checkouts or versions side by side
    _write_store({**kept, signature: {**known, entry: digest}})
    return digest


_STORED_SIGNATURES = 8


@cache
def _package_signature() -> str:
    files = sorted(_PACKAGE.rglob("*.py"))
    return _sha(f"{p.relative_to(_PACKAGE)}:{p.stat().st_size}:{p.stat().st_mtime_ns}".encode() for p in files)


def _read_store() -> dict[str, Any]:
    try:
        data = json.loads(code_digest_store().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_store(data: dict[str, Any]) -> None:
    path = code_digest_store()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:  # a read-only home only costs the recomputation
        tmp.unlink(missing_ok=True)


def _code_digest(entry: str) -> str:
    module, _, func = entry.partition(":")
    tree, top = _entry_source(module, func)
    local = _local_definitions(tree, top, func)
    top_imports = ast.Module(body=[n for n in top.body if isinstance(n, (ast.Import, ast.ImportFrom))],
                             type_ignores=[])
    todo = sorted(_imports(tree, module, False) | _imports(local, module, False) | _imports(top_imports, module, False))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(sorted(_parsed(name)[1] - seen))
    return _sha([ast.dump(tree).encode(), ast.dump(local).encode(),
                 *(f"{n}\n{_parsed(n)[0]}".encode() for n in sorted(seen))])


def _local_definitions(tree: ast.AST, top: ast.Module, func: str) -> ast.Module:
    """The top-level functions, classes and assignments of the entry's module that the entry
    names, and those they name, transitively (docstrings stripped; in the module's order): a step
    and the stage functions beside it are one unit of code, other steps of the module are not."""
    defined: dict[str, ast.stmt] = {}
    for node in top.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for bound in ast.walk(target):
                    if isinstance(bound, ast.Name):
                        defined[bound.id] = node
    named: set[str] = {func}
    todo: list[ast.AST] = [tree]
    while todo:
        for found in ast.walk(todo.pop()):
            if isinstance(found, ast.Name) and found.id in defined and found.id not in named:
                named.add(found.id)
                todo.append(defined[found.id])
    body = [n for n in top.body if any(defined.get(name) is n for name in named - {func})]
    return cast(ast.Module, _strip_docstrings(ast.Module(body=copy.deepcopy(body), type_ignores=[])))


def _entry_source(module: str, func: str) -> tuple[ast.AST, ast.Module]:
    """The entry function's parsed source (docstrings stripped) and its module's parsed source.

    Read from the module's file without importing it: a cached re-run computes every stage's key,
    and importing each stage's module (models, embeddings) would cost seconds. An entry is a
    function defined at the top level of an ``adat`` module, as every stage's step is.
    """
    path = _module_file(module)
    if path is None:
        raise ValueError(f"{module}:{func} is no function of an adat module")
    top = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in top.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == func)
    # the same dump as parsing the function's own source: ast.dump omits positions
    return _strip_docstrings(ast.Module(body=[copy.deepcopy(node)], type_ignores=[])), top


# --- files -----------------------------------------------------------------------------------
def _file_part(path: Path | str | None) -> bytes:
    if path is None:
        return b"-"
    p = Path(path)
    return p.name.encode() + b"\0" + (p.read_bytes() if p.is_file() else b"<missing>")


def prompts_digest(prompt_ids: Iterable[str]) -> str:
    folder = adat_home() / "catalogs" / "prompts"
    return _sha(_file_part(folder / f"{pid}.yaml") for pid in sorted(prompt_ids))


def instructions_digest() -> str:
    from adat.instruction_catalog import default_instructions_path

    return _sha([_file_part(default_instructions_path())])


def target_digest(cfg: RunConfig, fault: str | None = None) -> str:
    """Digest of what the target *is*: its artifacts' bytes and its identity in the config."""
    target = cfg.target
    # where the OTLP receiver listens changes no result; whether it joins spans, and how, does
    parts: list[bytes] = [target.model_dump_json(exclude={"timeout_s": True, "otlp": {"host", "port"}}).encode()]
    if isinstance(target, (ReferenceTarget, LLMAgentTarget)):
        parts.append(plugin_code_digest(target.type).encode())
        parts.append(_file_part(target.database or shipped.retail_db_path()))
        parts.append(_file_part(shipped.reference_rules_path()))
        for fid in sorted({f for f in (target.fault, fault) if f}):
            parts.append(_file_part(shipped.fault_dir() / f"{fid}.yaml"))
        if isinstance(target, LLMAgentTarget):
            parts.append(_file_part(target.policy or shipped.retail_policy_path()))
    elif isinstance(target, PythonTarget):
        spec = importlib.util.find_spec(target.factory.partition(":")[0])
        parts.append(_file_part(spec.origin if spec and spec.origin else None))
    parts.extend(_file_part(p) for p in cfg.evaluation.artifacts)
    return _sha(parts)


def plugin_code_digest(kind: str) -> str:
    """The parsed source of the package that provides the ``kind`` target plugin.

    The agent's code is one of the target's artifacts: the tester never imports it (so the stage
    code digests do not reach it), yet an edit to it changes every execution.
    """
    from importlib.metadata import entry_points

    from adat.targets.plugins import GROUP

    found = entry_points(group=GROUP, name=kind)
    spec = importlib.util.find_spec(next(iter(found)).module.split(".")[0]) if found else None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    return _sha(package_code_digest(Path(root)).encode() for root in roots)


def package_code_digest(root: Path) -> str:
    """Hash of every module under ``root`` (parsed: comments and docstrings do not count)."""
    files = sorted(root.rglob("*.py"))
    return _package_digest(root, tuple((p, p.stat().st_size, p.stat().st_mtime_ns) for p in files))


@cache
def _package_digest(root: Path, files: tuple[tuple[Path, int, int], ...]) -> str:
    return _sha(f"{p.relative_to(root)}\n{ast.dump(_strip_docstrings(ast.parse(p.read_text(encoding='utf-8'))))}".encode()
                for p, _size, _mtime in files)


def partition_digest(root: Path, run_id: str, tables: Iterable[str]) -> str:
    """Cheap digest of run ``run_id``'s partitions of ``tables`` (part names and sizes: parts are immutable)."""
    from adat.warehouse.layout import live_parts, partition_path  # names only: a key reads no Parquet

    parts: list[bytes] = []
    for table in sorted(tables):
        directory = partition_path(root, table, run_id)
        for path in live_parts(directory):
            parts.append(f"{table}/{path.name}:{path.stat().st_size}".encode())
    return _sha(parts)


# --- config and key --------------------------------------------------------------------------
def result_config(cfg: RunConfig) -> dict[str, Any]:
    """The run config without :data:`PERFORMANCE_FIELDS` (what may change a result)."""
    return cfg.model_dump(mode="json", exclude=PERFORMANCE_FIELDS)


def _input_part(name: str, value: Any) -> str:
    if isinstance(value, RunConfig):
        return json.dumps(result_config(value), sort_keys=True)
    if isinstance(value, (list, tuple)):  # several upstream results (or digests) in one input
        return "[" + ",".join(_input_part(name, item) for item in value) + "]"
    digest = getattr(value, "digest", None)
    if isinstance(digest, str) and hasattr(value, "step"):  # a StepResult: its digest stands for its rows
        return f"{value.step}:{digest or value.model_dump_json()}"
    if hasattr(value, "model_dump_json"):
        return str(value.model_dump_json())
    return json.dumps(value, sort_keys=True, default=str)


def stage_key(name: str, inputs: Mapping[str, Any]) -> str:
    """The cache key of stage ``name`` called with ``inputs`` (the task's parameters)."""
    spec = stage(name)
    cfg = next((v for v in inputs.values() if isinstance(v, RunConfig)), None)
    parts = [f"stage={name}", f"code={code_digest(spec.entry)}", f"prompts={prompts_digest(spec.prompts)}"]
    if spec.uses_instructions:
        parts.append(f"instructions={instructions_digest()}")
    if spec.uses_target and cfg is not None:
        fault = inputs.get("fault") or (inputs.get("variant") if inputs.get("variant") != "original" else None)
        parts.append(f"target={target_digest(cfg, fault)}")
    for key in sorted(inputs):
        parts.append(f"{key}={_input_part(key, inputs[key])}")
    if cfg is not None:
        for key in ("source_run_id", "suite_run_id"):
            source = inputs.get(key)
            if source:
                parts.append(f"{key}@{partition_digest(cfg.data_path(), str(source), SOURCE_TABLES)}")
    return _sha(p.encode() for p in parts)
