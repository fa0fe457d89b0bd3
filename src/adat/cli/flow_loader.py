"""Load a Prefect flow from the ``flows`` package (``flows/<name>.py`` in the repository).

``src/adat`` never imports Prefect; the CLI imports the project's flows only when a command runs
one. ``flows`` and ``tasks`` are packages of the wheel (see ``setup.py``), so this works from
any directory once adat is installed (``pip install .`` or ``pip install -e .``).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from adat.config import adat_home
from adat.errors import UserError


def load_flow(module: str, attr: str | None = None) -> Any:
    """Return the flow object ``attr`` (default: same as the module name) from ``flows.<module>``."""
    name = f"flows.{module}"
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name not in ("flows", name, "tasks"):
            raise  # a module the flow imports is missing: a real bug, keep the traceback
        mod = _import_from_checkout(name, exc.name or name)
    return getattr(mod, attr or module)


def _import_from_checkout(name: str, missing: str) -> Any:
    """Import ``name`` from the checkout ``adat_home()`` when the install does not provide it.

    An editable install made before ``flows`` and ``tasks`` became packages of the wheel only
    maps ``src/``; its checkout still holds them at the top level. A wheel never needs this.
    """
    home = adat_home()
    if not (home / "flows" / "__init__.py").is_file():
        raise UserError(f"cannot import {name} ({missing} not found)", file=str(home),
                        fix="install adat with pip (pip install . or pip install -e .)") from None
    if str(home) not in sys.path:
        sys.path.append(str(home))  # appended: an installed or PYTHONPATH copy still wins
    return importlib.import_module(name)
