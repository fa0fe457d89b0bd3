"""Load a script of benchmarks/selectors as a module, the way it runs from the command line."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "benchmarks" / "selectors"


def load_script(filename: str, module_name: str) -> ModuleType:
    """``benchmarks/selectors/<filename>`` as ``module_name``, its siblings (worlds.py, run.py) importable."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(module_name, SCRIPTS / filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module
