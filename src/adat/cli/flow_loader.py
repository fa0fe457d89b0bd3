"""Load a Prefect flow from ``flows/<name>.py`` by file path.

``src/adat`` never imports Prefect; the CLI runs the project's flows the way a Prefect
deployment does, by entrypoint path, so the flow shows in the Prefect UI like a scheduled run.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from adat.config import project_root
from adat.errors import UserError


def load_flow(module: str, attr: str | None = None) -> Any:
    """Return the flow object ``attr`` (default: same as the module name) from flows/<module>.py."""
    root = project_root()
    path = root / "flows" / f"{module}.py"
    if not path.is_file():
        raise UserError("flow file not found", file=str(path),
                        fix="run adat from a checkout of the adat repository or set ADAT_HOME to it")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location(f"flows.{module}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, attr or module)
