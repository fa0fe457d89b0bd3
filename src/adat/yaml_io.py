"""Reading the YAML files users write (run configs, catalogs, prompts, rules, faults)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from adat.errors import UserError

T = TypeVar("T")

#: libyaml's loader when PyYAML was built with it (same documents, several times faster)
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


#: Largest YAML file adat reads (run configs, specs, catalogs, prompts): a run config travels to
#: every flow as a Prefect parameter, and Prefect refuses parameters over 512 KB.
MAX_YAML_BYTES = 512 * 1024
#: Most nodes a YAML document may expand to once its aliases are followed: a few hundred bytes of
#: nested aliases (a "billion laughs" document) would otherwise become billions of values.
MAX_YAML_NODES = 200_000
#: Longest excerpt of a user's value an error message repeats.
EXCERPT_CHARS = 80


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)``, cut to ``limit`` characters with its full length noted (for error messages)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} chars)"


def read_user_text(path: Path, *, max_bytes: int = MAX_YAML_BYTES, what: str = "file") -> str:
    """The UTF-8 text of a file the user wrote; too large or not UTF-8 is a one-line :class:`UserError`."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise UserError(f"{what} is {size // 1024} KB, over the {max_bytes // 1024} KB limit", file=str(p),
                            fix="make it smaller (long lists belong in a separate file)")
        data = p.read_bytes()
    except IsADirectoryError:
        raise UserError(f"{what} is a directory", file=str(p), fix="pass a file") from None
    except FileNotFoundError:
        raise UserError(f"{what} not found", file=str(p), fix="pass the path of an existing file") from None
    except PermissionError:
        raise UserError(f"{what} is not readable", file=str(p), fix="check its permissions") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise UserError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", file=str(p), field=f"line {line}",
                        fix="save the file as UTF-8") from None


def read_yaml(path: Path) -> Any:
    """Parse ``path``; every problem is a one-line :class:`UserError` naming the file (and line):
    not UTF-8, over :data:`MAX_YAML_BYTES`, a syntax error, a key given twice in one mapping, or aliases
    that expand past :data:`MAX_YAML_NODES` nodes (refused before any value is built)."""
    text = read_user_text(path, what="YAML file")
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, str(path))
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        raise UserError("not valid YAML", file=str(path), field=where, fix="correct the YAML syntax") from None
    finally:
        loader.dispose()


def _check_nodes(root: yaml.Node, file: str) -> None:
    """Refuse duplicate keys and documents whose aliases expand past :data:`MAX_YAML_NODES`.

    Counts each node as often as aliases repeat it (memoised per node, so the count itself is
    linear in the document's size, however deep the aliases nest)."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        sizes[id(node)] = 1  # a recursive alias counts once
        total = 1
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in seen:
                        raise UserError(f"key {excerpt(key.value)} given twice (first on line {seen[key.value]})",
                                        file=file, field=f"line {key.start_mark.line + 1}",
                                        fix="keep one of them")
                    seen[key.value] = key.start_mark.line + 1
                total += size(key) + size(value)
        elif isinstance(node, yaml.SequenceNode):
            total += sum(size(item) for item in node.value)
        if total > MAX_YAML_NODES:
            raise UserError(f"the document expands to over {MAX_YAML_NODES} values (aliases repeat "
                            "anchored parts)", file=file, field=f"line {node.start_mark.line + 1}",
                            fix="use fewer or less nested aliases (*name)")
        sizes[id(node)] = total
        return total

    size(root)


def parsed_once(path: Path, parse: Callable[[Path], T]) -> T:
    """``parse(path)``, reused while the file's bytes are unchanged (an edit parses it again).

    For files many objects of a run load (the rule table, fault files): the caller hands out a
    copy when its result may be changed."""
    return _parsed(parse, path, str(Path(path).resolve()), hashlib.sha256(Path(path).read_bytes()).hexdigest())


@functools.lru_cache(maxsize=64)
def _parsed(parse: Callable[[Path], T], path: Path, resolved: str, digest: str) -> T:
    """``parse(path)`` by (parser, path, resolved path, sha256 of the file's bytes)."""
    return parse(path)
