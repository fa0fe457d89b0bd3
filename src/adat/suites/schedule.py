"""What a night runs: the blessed suite, a fresh suite, or both (config ``nightly``; docs/suites.md).

* No suite blessed under the night's name: generate a suite every night (the pipeline), as adat
  always did; each night is compared with the previous one through the test identity.
* A blessed suite: run it (``run-suite``) as the night's run, so every night executes the same
  tests and pass -> fail is a test id's verdict change; next to it, generate a fresh suite on the
  schedule ``nightly.regenerate`` sets — ``always``; ``weekly`` (when the newest regeneration, or
  the blessing, is 7 days old or more); ``on_new_statements`` (discovery each night, the suite
  only when it finds statements the blessed suite has no match for); ``never``. A fresh suite is
  never blessed by the night: its new tests and statements are listed as candidate additions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import cast

from adat.config import RunConfig
from adat.records import Run, SuiteBlessing
from adat.suites.suite_blessings import blessings
from adat.warehouse.parquet import read_records

WEEK = timedelta(days=7)
#: suffix of the run id of a night's fresh suite next to a blessed one
REGEN_SUFFIX = "regen"


@dataclass(frozen=True)
class NightPlan:
    """The runs of one night."""

    suite_name: str
    #: the blessed suite run executed tonight; None = no suite blessed, the night generates one
    suite_run: str | None
    #: generate a fresh suite tonight (with a blessed suite: next to it, as ``<night>-regen``)
    regenerate: bool
    #: on_new_statements: discover first, generate only when statements are new
    discover_first: bool
    reason: str

    def tags(self, cfg: RunConfig, evaluate: bool) -> list[str]:
        """Prefect tags of the night's flow runs: what it ran and with what."""
        offline = all(m.startswith("offline/") for m in cfg.models.model_dump().values())
        out = ["adat", "offline" if offline else "live", f"suite:{self.suite_name}"]
        out += ["blessed-suite"] if self.suite_run else []
        out += ["regenerate"] if self.regenerate else []
        out += ["evaluate"] if evaluate else []
        return out


def suite_name(cfg: RunConfig, config_path: str | Path) -> str:
    """The suite a night runs: ``nightly.suite``, else the config file's name without suffix."""
    return cfg.nightly.suite or Path(config_path).stem


def _same_config(run: Run, cfg: RunConfig) -> bool:
    def strip(data: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in data.items() if k not in ("run_id", "data_dir", "nightly")}

    return strip(json.loads(run.config_json)) == strip(json.loads(cfg.model_dump_json()))


def last_generation(root: Path, cfg: RunConfig, blessing: SuiteBlessing) -> datetime:
    """When a suite of this config was last generated: the newest pipeline run of the same config,
    or the blessing when later (a suite blessed today counts as generated today)."""
    runs = cast(list[Run], read_records(root, "runs"))
    started = [r.started_at for r in runs if r.flow == "pipeline" and _same_config(r, cfg)]
    return max([blessing.blessed_at, *started])


def plan_night(root: Path, cfg: RunConfig, config_path: str | Path, now: datetime) -> NightPlan:
    """The plan for a night starting at ``now`` (aware) in the warehouse at ``root``."""
    name = suite_name(cfg, config_path)
    named = [b for b in blessings(root) if b.name == name]
    if not named:
        return NightPlan(name, None, True, False, f"no suite blessed as {name!r}: a suite is generated every night")
    blessing = named[-1]
    mode = cfg.nightly.regenerate
    if mode == "always":
        return NightPlan(name, blessing.run_id, True, False, "nightly.regenerate: always")
    if mode == "never":
        return NightPlan(name, blessing.run_id, False, False, "nightly.regenerate: never")
    if mode == "on_new_statements":
        return NightPlan(name, blessing.run_id, False, True,
                         "nightly.regenerate: on_new_statements (discovery tonight; a suite if it finds new statements)")
    last = last_generation(root, cfg, blessing)
    due = now - last >= WEEK
    return NightPlan(name, blessing.run_id, due, False,
                     f"nightly.regenerate: weekly, last suite generated {last:%Y-%m-%d}" + (" (due)" if due else ""))
