"""PromptSmith's loop: VPR per iteration from the start prompt, candidate-then-promote, the
budget, and that hidden tests never reach the compiler role's prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.contracts.tdad_clauses import clause_texts
from adat.llm import LLMClient, LLMRequest, LLMResponse, ProviderRegistry, default_registry
from adat.tdad.compiler import compile_artifact, promptsmith_proposer
from adat_offline.provider import OfflineHeuristicProvider
from tests.test_tdad.loop_fakes import SEED, ClauseReadingAgent, library_spec, spec_test


def _client(tmp_path: Path, registry: ProviderRegistry | None = None) -> LLMClient:
    cfg = RunConfig(data_dir=str(tmp_path / "data"))
    cfg.llm.cache = False
    return LLMClient(cfg, "r1", registry=registry)


def _visible() -> list:
    return [spec_test("v1", ["L1_CARD_FIRST"]), spec_test("v2", ["L2_NO_OVERDUE"]),
            spec_test("v3", ["R2_RENEW"], leaf="R2_RENEW"), spec_test("v4", ["L1_CARD_FIRST", "END_ASK"], leaf="END_ASK")]


def test_offline_promptsmith_compiles_the_seed_until_every_visible_test_passes(tmp_path: Path) -> None:
    spec, agent = library_spec(), ClauseReadingAgent()
    client = _client(tmp_path)
    out = compile_artifact(SEED, _visible(), agent, promptsmith_proposer(client, spec),
                           clause_text=clause_texts(spec), max_iterations=4, inner_attempts=2, run_id="r1",
                           start_label="seed")
    rows = out.iterations
    assert rows[0].iteration == 0 and rows[0].candidate_digest == SEED.digest() and rows[0].start == "seed"
    assert rows[1].promoted and rows[1].failing_tests == ["v1", "v2", "v3", "v4"]
    assert set(rows[1].failing_clauses) == {"L1_CARD_FIRST", "L2_NO_OVERDUE", "R2_RENEW", "END_ASK"}
    assert "+- [L2_NO_OVERDUE] Never renew a loan" in rows[1].diff
    assert len(rows) == 2  # all visible pass after one iteration: the loop stops
    full = [r for r in out.results if r.scope == "full"]
    assert [sum(r.passed for r in full if r.iteration == i) for i in (0, 1)] == [0, 4]
    assert "[R2_RENEW]" in out.artifact.system_prompt and out.artifact.digest() == rows[1].in_effect_digest
    assert {c.role for c in client.drain_calls()} == {"promptsmith"}


def test_a_candidate_that_lowers_the_visible_pass_count_is_not_promoted(tmp_path: Path) -> None:
    tests = _visible()
    good = SEED.model_copy(update={"system_prompt": SEED.system_prompt + "- [L1_CARD_FIRST] x\n- [END_ASK] y\n"})
    worse = SEED.model_copy(update={"system_prompt": SEED.system_prompt + "- [L2_NO_OVERDUE] z\n"})
    proposals = iter([worse, worse])

    def propose(artifact, groups, total, passed, attempt):  # noqa: ANN001, ANN202
        return next(proposals, artifact)

    out = compile_artifact(good, tests, ClauseReadingAgent(), propose, clause_text={}, max_iterations=3,
                           inner_attempts=1, run_id="r1", start_label="seed")
    it1 = out.iterations[1]
    # `worse` fixes v2 on the failing tests, but its full run passes 1 < 2: rejected
    assert not it1.promoted and it1.in_effect_digest == good.digest() and it1.candidate_digest == worse.digest()
    assert out.artifact == good
    assert [(r.iteration, r.scope) for r in out.results if r.artifact_digest == worse.digest()][:1] == [(1, "failing")]
    # iteration 2: PromptSmith proposes the rejected candidate again -> nothing new to try -> stop
    last = out.iterations[-1]
    assert len(out.iterations) == 3 and not last.promoted and last.candidate_digest == good.digest()
    assert last.diff == "" and last.inner_attempts == 1


def test_budget_bounds_the_iterations(tmp_path: Path) -> None:
    tests = [spec_test(f"t{i}", [f"C{i}"]) for i in range(6)]
    step = {"n": 0}

    def propose(artifact, groups, total, passed, attempt):  # noqa: ANN001, ANN202
        step["n"] += 1  # one clause per candidate
        return artifact.model_copy(update={"system_prompt": artifact.system_prompt + f"[{groups[0].clause}]\n"})

    out = compile_artifact(SEED, tests, ClauseReadingAgent(), propose, clause_text={}, max_iterations=3,
                           inner_attempts=2, run_id="r1", start_label="seed")
    assert [r.iteration for r in out.iterations] == [0, 1, 2, 3] and step["n"] == 3
    assert sum(r.passed for r in out.results if r.scope == "full" and r.iteration == 3) == 3


def test_hidden_tests_are_refused() -> None:
    with pytest.raises(ValueError, match="visible tests only"):
        compile_artifact(SEED, [spec_test("h", ["L1_CARD_FIRST"], split="hidden")], ClauseReadingAgent(),
                         lambda *a: SEED, clause_text={}, max_iterations=1, inner_attempts=1, run_id="r", start_label="")


def test_no_rendered_promptsmith_prompt_holds_hidden_test_text(tmp_path: Path) -> None:
    seen: list[str] = []
    offline = OfflineHeuristicProvider()

    def spy(request: LLMRequest) -> LLMResponse:  # every rendered promptsmith prompt, answered offline
        seen.append(" ".join(str(m["content"]) for m in request.messages))
        return offline.complete(request)

    registry = default_registry()
    registry.register_fake("spy", spy)
    client = _client(tmp_path, registry)
    client.cfg.models.promptsmith = "fake/spy"
    spec = library_spec()
    visible = _visible()
    hidden = [spec_test("h1", ["L1_CARD_FIRST"], split="hidden", turns=["could you extend the due date, hidden-77"]),
              spec_test("h2", ["L2_NO_OVERDUE"], split="hidden", turns=["renew though it is 40 days late, hidden-78"])]
    compile_artifact(SEED, visible, ClauseReadingAgent(), promptsmith_proposer(client, spec),
                     clause_text=clause_texts(spec), max_iterations=4, inner_attempts=2, run_id="r1", start_label="seed")
    assert seen
    for text in seen:
        for test in hidden:
            for turn in test.user_turns:
                assert turn not in text and test.test_id not in text.split()
