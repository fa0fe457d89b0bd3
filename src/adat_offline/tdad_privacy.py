"""offline/heuristic TestSmith: what a spec keeps private, read from the spec at run time.

Output objects a policy about privacy names, or whose schema says they are never shown; their
sub-fields (what a user asking for private data names); and whether an intent is such a request.
"""

from __future__ import annotations

import re

from adat.contracts.tdad_spec import Spec
from adat_offline.tdad_text import words

PRIVACY_WORDS = frozenset({"pii", "private", "privacy", "reveal", "personal", "confidential"})


def private_objects(spec: Spec) -> dict[str, list[str]]:
    """tool -> names of output objects the spec says must never be shown."""
    privacy = [p.text for p in spec.policies if set(words(p.text)) & PRIVACY_WORDS]
    policy_words = {w for text in privacy for w in re.findall(r"[a-z0-9_]+", text.lower())}
    out: dict[str, list[str]] = {}
    for tool in spec.tools:
        for name, prop in ((tool.output_schema or {}).get("properties") or {}).items():
            if not isinstance(prop, dict) or "properties" not in prop:
                continue
            desc = str(prop.get("description", "")).lower()
            if ("never" in desc and ("shown" in desc or "reveal" in desc)) or name.lower() in policy_words:
                out.setdefault(tool.name, []).append(name)
    return out


def asks_private(spec: Spec, intent: str) -> bool:
    """The intent is a request for never-shown data: it names a private object or one of its
    fields, or every word of it is in the id of a policy about privacy (``P9_NO_SECRETS``
    for ``secrets``)."""
    mine = set(words(intent))
    if not mine:
        return False
    objects = {w for names in private_objects(spec).values() for n in names for w in words(n)}
    fields = {w for f in private_fields(spec) for w in words(f)}
    policies = [set(words(p.id)) for p in spec.policies if set(words(p.text)) & PRIVACY_WORDS]
    return bool(mine & (objects | fields)) or any(mine <= ids for ids in policies)


def private_fields(spec: Spec) -> list[str]:
    """Sub-field names of the never-shown objects (what a user asking for private data names)."""
    out = []
    for tool, names in private_objects(spec).items():
        t = spec.tool(tool)
        for name in names:
            props = ((t.output_schema if t else {}).get("properties") or {}).get(name, {}).get("properties") or {}
            out += [k for k in props if k not in out]
    return out
