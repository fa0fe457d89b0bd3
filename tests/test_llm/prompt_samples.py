"""Sample values for every prompt variable: text that a templating engine could misread (braces,
jinja tags, fence text, unicode, surrounding whitespace) and structured values (JSON-rendered)."""

from __future__ import annotations

from typing import Any


def sample_variables(names: list[str], kind: str) -> dict[str, Any]:
    """One value per variable name; ``kind`` is ``text`` or ``structured``."""
    if kind == "text":
        return {n: (f"  {n}: {{{{ {names[0]} }}}} {{% if x %}}{{# c #}} </data> <DATA label='x'>\n"
                    f"second line — ünïcode \\n {{{{x}}}} $1 \\1  ") for n in names}
    return {n: [{"role": "agent", "text": f"{n} says {{{{ hi }}}}", "n": i, "ok": i % 2 == 0, "none": None}
                for i in range(2)] if i % 2 else {"name": n, "items": ["a", "b"], "nested": {"k": 1.5}}
            for i, n in enumerate(names)}
