"""Identical mutants from different intents count once in mutation_score (issue #28 item 6):
on the hand-made warehouse, M2 and M3 (both activated, neither killed) get the same mutant prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.warehouse import build_catalog, run_query, write_records
from tests.test_sql import warehouse_fixture as fx
from tests.test_sql.conftest import SQL_DIR


def _ms(root: Path) -> dict[str, dict]:
    rows = run_query(build_catalog(root, SQL_DIR), SQL_DIR / "metrics" / "mutation_score.sql",
                     {"run_id": "r2", "faults": None}).to_pylist()
    return {r["kind"]: r for r in rows}


def _with_digests(root: Path, digests: dict[str, str]) -> None:
    prompt = [m.model_copy(update={"prompt_digest": digests.get(m.mutant_id, f"P-{m.mutant_id}")})
              for m in fx.tdad_tables("r2")["mutants"]]
    write_records(root, "mutants", fx.r2_tables()["mutants"] + prompt, run_id="r2")


def test_identical_activated_mutants_count_once_with_their_intents_named(tmp_path: Path) -> None:
    root = fx.write_metrics_fixture(tmp_path / "data")
    _with_digests(root, {})  # four different mutant prompts: the recorded figures
    row = _ms(root)["prompt"]
    assert (row["variants"], row["activated"], row["activated_intents"], row["killed"]) == (4, 3, 3, 1)
    assert row["duplicates"] == [] and row["survivors"] == ["M2", "M3"]
    _with_digests(root, {"M2": "SAME", "M3": "SAME", "M4": "SAME"})  # M4 is not activated: never merged
    row = _ms(root)["prompt"]
    assert (row["variants"], row["activated"], row["activated_intents"], row["killed"]) == (4, 2, 3, 1)
    assert row["mutation_score"] == pytest.approx(1 / 2) and row["activation_rate"] == pytest.approx(3 / 4)
    assert row["survivors"] == ["M2+M3"] and row["duplicates"] == ["M2+M3"] and row["not_activated"] == ["M4"]
    assert _ms(root)["fault"]["activated"] == 3  # seeded faults never merge
