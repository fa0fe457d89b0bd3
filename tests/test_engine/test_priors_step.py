"""The θ prior of a run comes only from runs that started before it (so a re-run sees the same)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.engine.stage_runner import run_stage
from adat.records import Attempt, Run, Statement
from adat.warehouse import write_records


def _run(root: Path, run_id: str, minutes: int, instruction: str | None, generator: str = "offline/heuristic",
         applicable: bool | None = None) -> None:
    start = datetime(2026, 11, 30, 2, 0, tzinfo=UTC) + timedelta(minutes=minutes)
    write_records(root, "runs", [Run(run_id=run_id, flow="pipeline", started_at=start)], run_id=run_id)
    if instruction:
        rows = [Attempt(run_id=run_id, attempt_no=i, statement_id=f"s{i}", instruction_id=instruction,
                        applicable=i % 2 == 1 if applicable is None else applicable, selector="adat2",
                        generator=generator) for i in range(1, 5)]
        write_records(root, "attempts", rows, run_id=run_id)


def test_history_is_earlier_runs_only(tmp_path: Path) -> None:
    root = tmp_path / "data"
    _run(root, "r0", 0, "k-early")
    _run(root, "r1", 10, "k-own")
    _run(root, "r2", 20, "k-late")
    cfg = RunConfig(data_dir=str(root))
    result = run_stage("selection-priors", cfg, "r1")
    assert set(result.data["priors"]) == {"k-early"}
    assert result.counts["history_attempts"] == 4
    assert run_stage("selection-priors", cfg.model_copy(update={"selector": cfg.selector.model_copy(
        update={"name": "cold-start"})}), "r1").data["priors"] == {}


def test_an_offline_run_never_feeds_an_openai_runs_prior(tmp_path: Path) -> None:
    root = tmp_path / "data"
    _run(root, "demo", 0, "k1", generator="offline/heuristic", applicable=False)   # all n/a offline
    _run(root, "night1", 5, "k2", generator="openai/qwen", applicable=True)
    _run(root, "night2", 10, None)
    cfg = RunConfig(data_dir=str(root))
    cfg = cfg.model_copy(update={"models": cfg.models.model_copy(update={"generator": "openai/qwen"})})
    result = run_stage("selection-priors", cfg, "night2")
    assert result.data["priors"] == {"k2": [4.0, 0.0]} and result.counts["history_attempts"] == 4
    # and the offline run's own successor sees only the offline history
    offline = run_stage("selection-priors", RunConfig(data_dir=str(root)), "night2")
    assert offline.data["priors"] == {"k1": [0.0, 4.0]}


def _statements(root: Path, run_id: str, texts: list[str]) -> None:
    write_records(root, "statements", [
        Statement(statement_id=f"s{i}", run_id=run_id, text=text, condition="c", behavior="b",
                  supporting_trace_id="t", supporting_turn=0, supporting_reply="r")
        for i, text in enumerate(texts, start=1)], run_id=run_id)


def test_past_attempts_carry_their_statements_text_and_reason_most_recent_last(tmp_path: Path) -> None:
    root = tmp_path / "data"
    _run(root, "r0", 0, "k-a")
    _statements(root, "r0", ["refund a delivered order", "cancel a pending order", "exchange an item", "x"])
    _run(root, "r1", 10, None)
    _statements(root, "r1", ["change the address"])
    write_records(root, "attempts", [Attempt(run_id="r1", attempt_no=1, statement_id="s1", instruction_id="k-b",
                                             selector="pooled", generator="offline/heuristic",
                                             reason="statement: no address on file")], run_id="r1")
    _run(root, "r2", 20, None)
    past = run_stage("selection-priors", RunConfig(data_dir=str(root)), "r2").data["past"]
    assert [row[:3] for row in past[:2]] == [["refund a delivered order", "k-a", True], ["cancel a pending order", "k-a", False]]
    assert past[-1] == ["change the address", "k-b", False, "statement"]
    assert past[0][3] is None and len(past) == 5


def test_past_attempts_are_capped_at_the_most_recent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import adat.stages.selection_priors as history

    root = tmp_path / "data"
    _run(root, "r0", 0, "k-old")
    _statements(root, "r0", ["a", "b", "c", "d"])
    _run(root, "r1", 10, "k-new")
    _statements(root, "r1", ["e", "f", "g", "h"])
    _run(root, "r2", 20, None)
    monkeypatch.setattr(history, "PAST_ATTEMPTS_LIMIT", 3)
    result = run_stage("selection-priors", RunConfig(data_dir=str(root)), "r2")
    assert [row[0] for row in result.data["past"]] == ["f", "g", "h"]
    assert set(result.data["priors"]) == {"k-old", "k-new"}   # the counts keep every earlier attempt


def test_the_transformation_key_changes_with_the_history_it_learns_from(tmp_path: Path) -> None:
    """The priors step writes no rows, so its digest is that of the history it read: the same run
    id over a different history must not be served the transformation cached for the first one."""
    from adat.engine.context import StepResult
    from adat.engine.fingerprint import stage_key

    keys, digests = [], []
    for name, applicable in (("a", True), ("b", False)):
        root = tmp_path / name / "data"
        _run(root, "r0", 0, "k1", applicable=applicable)
        _run(root, "r1", 10, None)
        cfg = RunConfig(data_dir=str(tmp_path / "same"))  # one config: only the history differs
        priors = run_stage("selection-priors", RunConfig(data_dir=str(root)), "r1")
        after = StepResult(run_id="r1", step="execution", digest="fixed")
        digests.append(priors.digest)
        keys.append(stage_key("transformation", {"cfg": cfg, "run_id": "r1", "after": after, "priors": priors}))
    assert digests[0] != digests[1] and keys[0] != keys[1]
    root = tmp_path / "a" / "data"
    assert run_stage("selection-priors", RunConfig(data_dir=str(root)), "r1").digest == digests[0]  # and stable


def test_each_selector_is_handed_only_the_history_it_uses(tmp_path: Path) -> None:
    """So its transformation key names nothing it ignores: ``past`` for pooled alone, nothing
    for a cold start."""
    root = tmp_path / "data"
    _run(root, "r0", 0, "k1")
    _statements(root, "r0", ["a", "b", "c", "d"])
    _run(root, "r1", 10, None)

    def handed(name: str) -> dict[str, object]:
        cfg = RunConfig(data_dir=str(root))
        return run_stage("selection-priors", cfg.model_copy(update={"selector": cfg.selector.model_copy(
            update={"name": name})}), "r1").data

    assert len(handed("pooled")["past"]) == 4 and handed("pooled")["priors"] == {"k1": [2.0, 2.0]}
    assert handed("adat2") == {"priors": {"k1": [2.0, 2.0]}, "past": []}
    assert handed("pooled-cold-start") == handed("cold-start") == {"priors": {}, "past": []}
