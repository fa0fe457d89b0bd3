"""Issue 9's check that moving seeded faults into mutation testing left their score unchanged.

``old`` is a row of ``pre_move_mutation_score.sql`` (faults detected / faults run, no activation),
``new`` the ``kind = 'fault'`` row of ``sql/metrics/mutation_score.sql`` (killed / activated). Both
definitions must kill the same faults by the same rule; the scores may differ only by the
denominator, where a fault's probe did not activate it (a fault the suite never reaches)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PRE_MOVE_SQL = Path(__file__).resolve().parent / "pre_move_mutation_score.sql"


def move_mismatch(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """Why the two scores disagree beyond their denominators, or None when they agree."""
    if old["faults"] != new["variants"]:
        return f"{old['faults']} faults run before the move, {new['variants']} variants after"
    if set(old["detected_faults"]) != set(new["killed_variants"]):
        return f"detected {sorted(old['detected_faults'])} before, killed {sorted(new['killed_variants'])} after"
    if set(old["detected_faults"]) & set(new["not_activated"]):
        return f"detected but not activated: {sorted(set(old['detected_faults']) & set(new['not_activated']))}"
    expected = old["mutation_score"] if not new["not_activated"] else old["faults_detected"] / new["activated"]
    if new["mutation_score"] != expected:
        return f"mutation score {new['mutation_score']} after the move, {expected} expected"
    return None
