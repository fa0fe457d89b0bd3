"""Lines of the tester (``src/adat``) by package, split into code, docstrings, comments and blank lines.

Issue #26's size bar counts every line (``find src/adat -name '*.py' | xargs cat | wc -l``): at least
15 % under the 19,700 lines ``src/adat`` had outside the stand-in when the issue was filed, i.e. at
most 16,745. This prints that count beside the bar, and the split, so a cut can be read for what it
removed (code, not documentation); it exits 1 while the count is over the bar.

    python benchmarks/code_size.py [--root src/adat] [--exclude PACKAGE ...]

``--exclude offline agents`` on a checkout of 605da69 (the filing) leaves out the stand-in and the
reference agent, which lived in ``src/adat`` then: that is the 19,700 the bar is measured from.
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path

BAR = 16_745  # 19,700 - 15 %
KINDS = ("lines", "code", "docstrings", "comments", "blank")


def split(source: str) -> Counter[str]:
    """The lines of one module by kind (a docstring line counts once, whatever else is on it)."""
    lines = source.splitlines()
    docs: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    count: Counter[str] = Counter(lines=len(lines), docstrings=len(docs))
    for number, line in enumerate(lines, 1):
        if number in docs:
            continue
        text = line.strip()
        count["blank" if not text else "comments" if text.startswith("#") else "code"] += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1] / "src" / "adat")
    parser.add_argument("--exclude", nargs="*", default=[], help="top-level packages of ROOT to leave out")
    args = parser.parse_args()
    root = args.root
    packages: dict[str, Counter[str]] = {}
    for path in sorted(root.rglob("*.py")):
        part = path.relative_to(root).parts
        name = part[0] if len(part) > 1 else "(top-level modules)"
        if name in args.exclude:
            continue
        packages.setdefault(name, Counter()).update(split(path.read_text(encoding="utf-8")))
    total = sum(packages.values(), Counter())
    print(f"{'package':24}" + "".join(f"{k:>12}" for k in KINDS))
    for name, count in sorted(packages.items(), key=lambda kv: -kv[1]["lines"]):
        print(f"{name:24}" + "".join(f"{count[k]:>12,}" for k in KINDS))
    print(f"{'total':24}" + "".join(f"{total[k]:>12,}" for k in KINDS))
    over = total["lines"] - BAR
    print(f"issue #26 bar: at most {BAR:,} lines; {'over by' if over > 0 else 'under by'} {abs(over):,}")
    raise SystemExit(1 if over > 0 else 0)


if __name__ == "__main__":
    main()
