"""Reading a query file's header and the relations it reads, for the convention tests."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

#: table functions a query may read from besides views
TABLE_FUNCTIONS = {"unnest", "range"}


def header_lines(path: Path) -> list[str]:
    """The file's comment lines (all start with ``--``)."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("--")]


def header_field(path: Path, name: str) -> str | None:
    """The text after ``-- name:`` in the header, or None."""
    prefix = f"-- {name}:"
    return next((line[len(prefix):].strip() for line in header_lines(path) if line.startswith(prefix)), None)


def code(path: Path) -> str:
    """The file without comments and with every string literal emptied."""
    text = path.read_text(encoding="utf-8")
    return re.sub(r"'(?:[^']|'')*'", "''", re.sub(r"--[^\n]*", "", text))


def read_relations(path: Path) -> set[str]:
    """Names after ``from``/``join`` that are not the file's own CTEs or a table function."""
    sql = code(path)
    ctes = set(re.findall(r"(\w+) as \(", sql))
    sources = set(re.findall(r"\b(?:from|join)\s+([a-z_][a-z0-9_]*)", sql, re.IGNORECASE))
    return sources - ctes - TABLE_FUNCTIONS


def catalog_views(db: Path, *prefixes: str) -> set[str]:
    """Names of the catalog's views that start with one of ``prefixes``."""
    with duckdb.connect(str(db), read_only=True) as con:
        names = [row[0] for row in con.execute("select view_name from duckdb_views() where not internal").fetchall()]
    return {name for name in names if name.startswith(prefixes)}


def declared_inputs(path: Path) -> set[str]:
    """The relation names on the header's ``-- inputs:`` line, notes in parentheses dropped."""
    items = (header_field(path, "inputs") or "").split(",")
    return {re.sub(r"\s*\(.*\)", "", item).strip() for item in items} - {""}
