"""What a night runs: the blessed suite or a fresh one, regenerated on nightly.regenerate's schedule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from adat.config import NightlyConfig, RunConfig
from adat.records import Run, SuiteBlessing, TestCase
from adat.suites.schedule import plan_night
from adat.suites.suite_blessings import bless, blessed_run, resolve_suite
from adat.warehouse import write_records

NOW = datetime(2026, 12, 3, 2, 0, tzinfo=UTC)


def _cfg(root: Path, regenerate: str = "always", suite: str | None = None) -> RunConfig:
    return RunConfig(data_dir=str(root), nightly=NightlyConfig(regenerate=regenerate, suite=suite))  # type: ignore[arg-type]


def _suite(root: Path, run_id: str, name: str, when: datetime) -> None:
    write_records(root, "tests", [TestCase(test_id=f"te-{run_id}", run_id=run_id, kind="plain", goal="g",
                                           step_hints=["hi"])], run_id=run_id)
    write_records(root, "suite_blessings", [SuiteBlessing(run_id=run_id, name=name, blessed_at=when, tests=1)],
                  run_id=run_id, owner="bless")


def test_without_a_blessed_suite_every_night_generates_one(tmp_path: Path) -> None:
    plan = plan_night(tmp_path, _cfg(tmp_path, "never"), "/x/retail.yaml", NOW)
    assert plan.suite_name == "retail" and plan.suite_run is None and plan.regenerate


def test_weekly_regenerates_only_when_the_last_suite_is_a_week_old(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, "weekly", suite="gold")
    _suite(tmp_path, "s1", "gold", NOW - timedelta(days=3))
    plan = plan_night(tmp_path, cfg, "/x/retail.yaml", NOW)
    assert plan.suite_run == "s1" and not plan.regenerate and "weekly" in plan.reason
    later = plan_night(tmp_path, cfg, "/x/retail.yaml", NOW + timedelta(days=5))
    assert later.regenerate and "(due)" in later.reason
    write_records(tmp_path, "runs", [Run(run_id="g2", flow="pipeline", started_at=NOW + timedelta(days=4),
                                         config_json=cfg.model_copy(update={"run_id": "g2"}).model_dump_json())],
                  run_id="g2")  # a suite generated since: not due again for a week
    assert not plan_night(tmp_path, cfg, "/x/retail.yaml", NOW + timedelta(days=5)).regenerate


def test_never_always_and_on_new_statements(tmp_path: Path) -> None:
    _suite(tmp_path, "s1", "retail", NOW)
    assert not plan_night(tmp_path, _cfg(tmp_path, "never"), "retail.yaml", NOW).regenerate
    assert plan_night(tmp_path, _cfg(tmp_path, "always"), "retail.yaml", NOW).regenerate
    later = plan_night(tmp_path, _cfg(tmp_path, "on_new_statements"), "retail.yaml", NOW)
    assert later.discover_first and not later.regenerate and later.suite_run == "s1"
    tags = later.tags(_cfg(tmp_path), evaluate=True)
    assert {"offline", "evaluate", "suite:retail", "blessed-suite"} <= set(tags)


def test_blessing_again_moves_the_name_and_a_name_or_run_id_resolves(tmp_path: Path) -> None:
    _suite(tmp_path, "s1", "other", NOW)
    write_records(tmp_path, "tests", [TestCase(test_id="te-s2", run_id="s2", kind="plain", goal="g",
                                               step_hints=["hi"])], run_id="s2")
    bless(tmp_path, "s1", "gold")
    bless(tmp_path, "s2", "gold")
    assert blessed_run(tmp_path, "gold") == "s2"
    assert resolve_suite(tmp_path, "gold") == "s2" and resolve_suite(tmp_path, "s1") == "s1"
