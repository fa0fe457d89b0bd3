"""A fingerprint of the code and catalogs a run depends on.

Prefect's ``TASK_SOURCE`` only sees the thin task wrapper; passing this fingerprint as a task
input makes a cached stage recompute when the library, a prompt or a catalog changes.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from adat.config import adat_home


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 (16 hex) over src/adat/**/*.py and catalogs/** of this checkout."""
    root = adat_home()
    digest = hashlib.sha256()
    for base, pattern in ((Path(__file__).resolve().parents[1], "**/*.py"), (root / "catalogs", "**/*")):
        for path in sorted(base.glob(pattern)):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(base)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
