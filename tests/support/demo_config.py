"""The demo run config shrunk for a test (its own data directory and a small budget), and a run
config written as the YAML file a user would pass to ``adat --config``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from adat.config import RunConfig, demo_config_path, load_run_config


def small_demo_config(data_dir: Path, *, sessions: int, n: int, **update: Any) -> RunConfig:
    """``data/reference/demo.yaml`` (reference agent, offline provider) writing under ``data_dir``,
    with ``sessions`` discovery sessions and ``n`` generated tests; ``update`` sets further
    top-level fields (``run_id``, ...) as they are."""
    cfg = load_run_config(demo_config_path())
    return cfg.model_copy(update={
        "data_dir": str(data_dir),
        "discovery": cfg.discovery.model_copy(update={"sessions": sessions}),
        "generation": cfg.generation.model_copy(update={"n": n}),
        **update,
    })


def write_config(cfg: RunConfig, path: Path) -> Path:
    """``cfg`` as a run-config YAML file at ``path`` (for the CLI and the nightly deployment); ``path``."""
    path.write_text(yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False), encoding="utf-8")
    return path
