"""The figures ``adat demo --evaluate`` prints, read from a finished demo's warehouse through
``sql/metrics`` — one definition for ``benchmarks/demo_time.py`` and the test that holds the
renovation of issue 26 to the figures recorded before it (tests/fixtures/demo_figures.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: the figures recorded at 622a976, before the renovation (python benchmarks/demo_time.py --evaluate)
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "demo_figures.json"


def demo_run_id(data: Path) -> str:
    """The demo's pipeline run in ``data``."""
    from adat.warehouse import read_records

    return [r for r in read_records(data, "runs") if r.flow == "pipeline"][-1].run_id


def demo_figures(data: Path, run_id: str, db: Path | None = None) -> dict[str, Any]:
    """Tests, attempts, V/C, FAR, accuracy, seeded faults detected / seeded (with activated / seeded
    and the unreached faults), mutation score, both-sides share and the inconclusive
    share of the demo run ``run_id`` (with ``--evaluate``), as plain numbers and lists."""
    from adat.config import adat_home
    from adat.warehouse import build_catalog, declared_params, read_records, run_query

    db = db or build_catalog(data, adat_home() / "sql")

    def metric(name: str) -> list[dict[str, Any]]:
        path = adat_home() / "sql" / "metrics" / f"{name}.sql"
        return run_query(db, path, {**dict.fromkeys(declared_params(path)), "run_id": run_id}).to_pylist()

    def original(rows: list[dict[str, Any]]) -> dict[str, Any]:
        return next(r for r in rows if r.get("agent_variant", "original") == "original")

    tests = read_records(data, "tests", run_id=run_id)
    attempts = read_records(data, "attempts", run_id=run_id)
    validity = next(r for r in metric("validity_rate") if r["kind"] == "all")
    score = next(r for r in metric("mutation_score") if r["kind"] == "fault")
    detection = next(iter(metric("seeded_fault_detection")), None)
    both = next(r for r in metric("both_sides_share") if r["kind"] == "all")
    inc = next(r for r in metric("inconclusive_share") if r["kind"] == "all")
    kills = {r["kind"]: r for r in run_query(db, adat_home() / "benchmarks" / "transformed_kills.sql",
                                             {"run_id": run_id}).to_pylist()}
    return {
        "plain_tests": sum(1 for t in tests if t.kind == "plain"),
        "transformed_tests": sum(1 for t in tests if t.kind == "transformed"),
        "attempts": len(attempts),
        "not_applicable": sum(1 for a in attempts if not a.applicable),
        "valid": validity["valid"], "counted": validity["counted"],
        "validity_rate": validity["validity_rate"],
        "false_alarm_rate": original(metric("false_alarm_rate"))["false_alarm_rate"],
        "accuracy": original(metric("accuracy"))["accuracy"],
        "faults": score["variants"], "activated": score["activated"], "killed": score["killed"],
        "killed_faults": sorted(score["killed_variants"]), "not_activated": sorted(score["not_activated"]),
        "mutation_score": score["mutation_score"],
        # the seeded-fault headline (issue #28 item 5): detected / seeded, activated / seeded, unreached
        "seeded": detection and detection["seeded"], "detected": detection and detection["detected"],
        "detection_rate": detection and detection["detection_rate"],
        "activation_rate": detection and detection["activation_rate"],
        "unreached": detection and sorted(detection["unreached"]),
        "both_sides_p": both["p"], "both_sides_u": both["u"], "both_sides_share": both["both_sides_share"],
        "inconclusive": inc["inconclusive"], "executions": inc["executions"],
        # issue #28 item 4 (benchmarks/transformed_kills.sql): rewordings among the transformed
        # tests, and the seeded faults the transformed tests detect on their own
        "rewordings": kills["transformed"]["rewordings"], "wording_tests": kills["transformed"]["wording_tests"],
        "transformed_detected": kills["transformed"]["detected"],
    }
