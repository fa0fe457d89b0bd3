"""Load a Prefect flow from the ``flows`` package (``flows/<name>.py`` in the repository).

``src/adat`` never imports Prefect; the CLI imports the project's flows only when a command runs
one. ``flows`` and ``tasks`` are packages of the wheel (see ``setup.py``), so this works from
any directory once adat is installed (``pip install .`` or ``pip install -e .``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from adat.config import (
    HF_OFFLINE_ENV,
    PREFECT_ENV_DEFAULTS,
    RunConfig,
    adat_home,
    apply_env_defaults,
)
from adat.errors import UserError


def run_flow(flow_name: str, **params: object) -> object:
    """Run ``flows.<flow_name>`` with ``params``, against the Prefect server of the config's data dir.

    A server the user named (``PREFECT_API_URL``) wins; else the one ``adat server start`` runs for
    the data directory; else Prefect starts its temporary in-process server for this command.
    """
    from adat.cli.app import skip_teardown_at_exit, sweep_abandoned

    skip_teardown_at_exit()
    config = params.get("config")
    data_dir = config.data_path() if isinstance(config, RunConfig) else RunConfig().data_path()
    sweep_abandoned(data_dir)
    prepare_flow_environment(data_dir)
    return call_flow(load_flow(flow_name), **params)


def call_flow(flow: Any, **params: object) -> object:
    """Run the flow object ``flow`` in this process as a command does (``flows/_cli.py``: no heartbeats)."""
    return load_flow("_cli", "run_in_foreground")(flow, **params)


def prepare_flow_environment(data_dir: Path) -> None:
    """Set the environment a flow run starts with (before Prefect is imported)."""
    from adat.prefect_server import running_server

    apply_env_defaults({**PREFECT_ENV_DEFAULTS, **HF_OFFLINE_ENV})
    server = running_server(data_dir)
    if server is not None:
        apply_env_defaults({"PREFECT_API_URL": server.api_url})  # an exported PREFECT_API_URL still wins


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
