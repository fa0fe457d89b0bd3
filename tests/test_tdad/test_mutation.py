"""Mutation testing of a compiled prompt: offline MutationSmith, activation probes, kills scored
by the SQL kill rule (a test flaky on the unmutated prompt kills nothing), MS over activated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adat.config import RunConfig
from adat.llm import LLMClient
from adat.mutation import activate, predicates_hold
from adat.tdad.mutate import mutant_maker, mutate_compiled, probe_tests
from adat.tdad.pack_model import MutationPack
from adat.tdad.suite_runs import rerun_suite
from adat.warehouse import build_catalog, run_query, write_records
from tests.test_sql.conftest import SQL_DIR
from tests.test_tdad.loop_fakes import SEED, ClauseReadingAgent, result, spec_test

COMPILED = SEED.model_copy(update={"system_prompt": SEED.system_prompt
                                   + "- [L1_CARD_FIRST] Always call lookup_member before renew_loan.\n"
                                   + "- [L2_NO_OVERDUE] Never renew a loan that is overdue by more than 30 days.\n"})


def _pack(*mutations: dict[str, Any]) -> MutationPack:
    return MutationPack.model_validate({"mutation_pack_id": "lib", "generator": {"max_attempts": 3,
                                        "constraints": ["Do not add tools."]}, "mutations": list(mutations)})


SKIP_LOOKUP = {"id": "SKIP_LOOKUP", "intent": "Renew loans straight away: never call lookup_member before renew_loan.",
               "activation_probe": {"case": "renew_known_card", "user_turns": ["renew my book please"],
                                    "expect_violation": {"trace": {"called": ["renew_loan"],
                                                                   "not_called": ["lookup_member"]}}}}
SILENT = {"id": "NEVER_SHOWS", "intent": "Allow renewing loans overdue by more than 30 days.",
          "activation_probe": {"user_turns": ["renew my overdue book"],
                               "expect_violation": {"text": {"contains_any": ["a phrase the agent never says"]}}}}


def _client(tmp_path: Path) -> LLMClient:
    return LLMClient(RunConfig(data_dir=str(tmp_path / "data")), "r1")


def _visible() -> list:
    return [spec_test("v1", ["L1_CARD_FIRST"], title="renew with a known card"), spec_test("v2", ["L2_NO_OVERDUE"])]


def _score(tmp_path: Path, agent: ClauseReadingAgent, pack: MutationPack) -> dict[str, Any]:
    visible, client = _visible(), _client(tmp_path)
    out = mutate_compiled(COMPILED, pack, visible, agent, mutant_maker(client, pack), run_id="r1")
    root = tmp_path / "data"
    write_records(root, "mutants", out.mutants, run_id="r1")
    write_records(root, "mutant_results", out.results, run_id="r1")
    write_records(root, "spec_reruns", rerun_suite(COMPILED, visible, agent, k=3, run_id="r1", scope="suite"), run_id="r1")
    db = build_catalog(root, SQL_DIR)
    (row,) = run_query(db, SQL_DIR / "metrics" / "mutation_score.sql", {"run_id": "r1", "faults": None}).to_pylist()
    assert row["kind"] == "prompt"
    return row


def test_offline_mutationsmith_removes_the_clause_the_intent_is_about(tmp_path: Path) -> None:
    pack = _pack(SKIP_LOOKUP)
    mutant = mutant_maker(_client(tmp_path), pack)(COMPILED, pack.mutations[0], 0)
    assert "[L1_CARD_FIRST]" not in mutant.system_prompt and "[L2_NO_OVERDUE]" in mutant.system_prompt
    assert "Always call respond last." in mutant.system_prompt  # the response contract is kept
    assert set(mutant.tool_descriptions) == set(COMPILED.tool_descriptions)


def test_probe_predicates() -> None:
    pack = _pack(SKIP_LOOKUP)
    test = spec_test("p", ["L1_CARD_FIRST"])
    predicates = pack.mutations[0].activation_probe.expect_violation
    assert predicates_hold(predicates, result(test, {}, calls=["renew_loan"])) is True
    assert predicates_hold(predicates, result(test, {}, calls=["lookup_member", "renew_loan"])) is False
    unobserved = result(test, {})
    unobserved.turns[0].tool_calls = None  # a target that does not report tool calls
    assert predicates_hold(predicates, unobserved) is None


def test_activation_needs_the_probe_to_hold_on_the_variant_and_not_on_the_base() -> None:
    made: list[int] = []
    got = activate(lambda a: made.append(a) or a, lambda v: v == 2, base_holds=False, max_attempts=5)
    assert got.activated and got.attempts == 3 and made == [0, 1, 2]
    assert not activate(lambda a: a, lambda v: True, base_holds=True, max_attempts=5).activated
    assert not activate(lambda a: a, lambda v: None, base_holds=None, max_attempts=2).activated


def test_probe_takes_the_fixtures_of_the_closest_visible_test() -> None:
    probe = probe_tests(_pack(SKIP_LOOKUP).mutations[0], _visible())[0]
    assert probe.derived_from == "v1" and probe.user_turns == ["renew my book please"]
    assert probe.test_id == "probe-SKIP_LOOKUP-probe0"


def test_activated_mutant_is_killed_and_a_non_activated_one_is_not_scored(tmp_path: Path) -> None:
    row = _score(tmp_path, ClauseReadingAgent(), _pack(SKIP_LOOKUP, SILENT))
    assert (row["variants"], row["activated"], row["killed"], row["mutation_score"]) == (2, 1, 1, 1.0)
    assert row["survivors"] == [] and row["not_activated"] == ["NEVER_SHOWS"]


def test_a_test_flaky_on_the_unmutated_prompt_kills_nothing(tmp_path: Path) -> None:
    # v1 (the only test the mutant fails) fails every other rerun on the compiled prompt too
    row = _score(tmp_path, ClauseReadingAgent(flaky={"v1": 0.5}), _pack(SKIP_LOOKUP))
    assert (row["activated"], row["killed"], row["mutation_score"]) == (1, 0, 0.0)
    assert row["survivors"] == ["SKIP_LOOKUP"]


def test_offline_mutationsmith_takes_a_tool_the_intent_forbids_out_of_orders_and_gates(tmp_path: Path) -> None:
    compiled = SEED.model_copy(update={"system_prompt": SEED.system_prompt
                                       + "- [R2_RENEW] Renew after checks. Call the tools in this order: "
                                       "lookup_member, renew_loan. Branches: when ok go to END_RENEWED.\n"
                                       + "- [L1_CARD_FIRST] Always call lookup_member before renew_loan.\n"})
    pack = _pack({**SKIP_LOOKUP, "intent": "Never call lookup_member."})
    mutant = mutant_maker(_client(tmp_path), pack)(compiled, pack.mutations[0], 0)
    assert "Call the tools in this order: renew_loan." in mutant.system_prompt
    assert "before renew_loan" not in mutant.system_prompt and "Branches: when ok go to END_RENEWED." in mutant.system_prompt
