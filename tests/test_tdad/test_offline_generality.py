"""The offline stand-in's TDAD side on specs nobody tuned it for (issue #28 items 6-7).

The condition grammar (quoted literals, disjunctions, failures, loop counters), what TestSmith
makes of each form, and whole suites: MeterDesk (tests/fixtures/tdad_meterdesk, written for
these tests) and ParcelDesk (benchmarks/cases/tdad, written before the tester changed) compile
and activate their mutation intents, every role offline/heuristic, without Prefect
(tests/support/tdad_pipeline.py runs the flow's library functions).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adat.config import RunConfig
from adat.contracts.tdad_clauses import clause_line, clause_texts
from adat.llm.client import LLMClient
from adat.tdad.artifact import PromptArtifact
from adat.tdad.runner import run_spec_test
from adat.tdad.spec_loader import load_spec
from adat.tdad.testsmith import generate_tests, leaf_paths
from adat_offline.tdad_scenario import build
from adat_offline.tdad_text import parse_alternatives, parse_condition
from tests.support.tdad_pipeline import run_suite

ROOT = Path(__file__).resolve().parents[2]
METER = ROOT / "tests" / "fixtures" / "tdad_meterdesk"
PARCEL = ROOT / "benchmarks" / "cases" / "tdad"


# --- the condition grammar -----------------------------------------------------------------------
def test_quoted_literals_are_strings_without_their_quotes() -> None:
    (atoms,) = parse_alternatives("box.state != 'SHIPPED' and box.count >= 3") or []
    assert [(a.lhs, a.op, a.rhs, a.quoted) for a in atoms] == [("box.state", "!=", "SHIPPED", True),
                                                                ("box.count", ">=", "3", False)]
    assert atoms[0].value == "SHIPPED" and atoms[1].value == 3
    assert parse_alternatives("code == '3'")[0][0].value == "3"  # type: ignore[index]  # quoted: stays a string


def test_or_splits_alternatives_and_binds_looser_than_and_but_not_inside_quotes() -> None:
    alts = parse_alternatives("kind == 'a or b' or size > 2 and colour == \"red\"") or []
    assert [[(a.lhs, a.rhs) for a in alt] for alt in alts] == [[("kind", "a or b")], [("size", "2"), ("colour", "red")]]
    assert parse_condition("kind == 'a' or kind == 'b'") is None  # a conjunction-only reader cannot take it
    assert parse_alternatives("otherwise") == [[]] and parse_alternatives("when it rains") is None


def test_failures_and_loop_counters_are_told_from_output_fields() -> None:
    (atoms,) = parse_alternatives("fetch.error == 'unreachable' and retries >= 1 and login_attempts < 3"
                                  " and delivery_window == 2") or []
    assert [a.is_error for a in atoms] == [True, False, False, False]
    assert [a.is_counter for a in atoms] == [False, True, True, False]
    assert atoms[1].counts_retries and not atoms[2].counts_retries


# --- what TestSmith makes of each form (MeterDesk) ------------------------------------------------
@pytest.fixture(scope="module")
def meter(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("meter")
    spec = load_spec(METER / "spec.yaml")
    cfg = RunConfig(data_dir=str(tmp / "data"))
    client = LLMClient(cfg, "r1", cache_dir=tmp / "cache")
    return cfg, client, spec, generate_tests(client, spec, seed=0, run_id="r1")


def _fixture(test, tool: str):
    return next(f for f in test.fixtures if f.tool == tool)


def test_every_leaf_gets_tests_and_no_path_conflicts(meter) -> None:
    _, _, spec, tests = meter
    assert {t.leaf_id for t in tests} == set(spec.leaves())  # the undeclared END_HANDED_TO_STAFF too
    for leaf, path in leaf_paths(spec):
        sc = build(spec, path, seed=1)
        assert not sc.unrealizable, leaf
    readings = [t for t in tests if t.leaf_id == "END_READING_LOGGED" and t.family == "MFT"]
    assert readings and all("meter reading" in t.user_turns[0] for t in readings)  # the disjunct the path needs


def test_a_failure_is_a_fixture_failure_with_no_output_beside_it(meter) -> None:
    _, _, _, tests = meter
    down = [t for t in tests if t.leaf_id == "END_SERVICE_DOWN" and t.family == "MFT"]
    assert down
    for test in down:
        fixture = _fixture(test, "find_account")
        assert (fixture.failure, fixture.fail_times, fixture.output_json) == ("unavailable", 0, "{}")


def test_an_attempts_counter_becomes_turns_that_restate_the_field(meter) -> None:
    _, _, _, tests = meter
    (test,) = [t for t in tests if t.leaf_id == "END_HOLDER_NOT_CONFIRMED" and t.family == "MFT"]
    years = [re.findall(r"birth[_ ]year\D*(\d{4})", turn) for turn in test.user_turns]
    assert len(test.user_turns) == 3 and all(len(y) == 1 for y in years)
    assert len({y[0] for y in years}) == 3  # another year each attempt
    assert json.loads(_fixture(test, "confirm_holder").output_json) == {"confirmed": False}


def test_literals_limits_and_values_are_realised(meter) -> None:
    _, _, _, tests = meter
    states = {json.loads(_fixture(t, "find_account").output_json).get("state") for t in tests
              if t.leaf_id == "END_PLAN_REFUSED" and "M8_START_PLAN" not in t.node_path and not _fixture(
                  t, "find_account").failure}
    assert "IN_ARREARS" in states and states - {"IN_ARREARS"} <= {"ACTIVE", "CLOSED"}  # enum values, never not_X
    (edge,) = [t for t in tests if t.leaf_id == "END_DISPUTE_REFUSED" and t.family == "boundary_values"]
    assert json.loads(_fixture(edge, "find_account").output_json)["days_overdue"] == 61  # just past > 60
    for test in tests:
        for f in test.fixtures:
            numbers = [v for v in json.loads(f.output_json).values() if isinstance(v, int) and not isinstance(v, bool)]
            assert all(n >= 0 for n in numbers), (test.title, f.output_json)
        assert not re.search(r"BIRYEA|DAT-\d", " ".join(test.user_turns))  # no placeholder for a year or a date


def test_every_test_passes_on_every_clause_and_most_fail_on_the_seed(meter) -> None:
    cfg, client, spec, tests = meter
    full = PromptArtifact(system_prompt=(METER / "seed_prompt.txt").read_text() + "\n" + "\n".join(
        clause_line(k, v) for k, v in clause_texts(spec).items()) + "\n")
    seed = PromptArtifact(system_prompt=(METER / "seed_prompt.txt").read_text())
    visible = [t for t in tests if t.split == "visible"]
    assert all(run_spec_test(cfg, client, spec, full, t, run_id="r1").passed for t in tests)
    assert sum(run_spec_test(cfg, client, spec, seed, t, run_id="r1").passed for t in visible) < len(visible) / 4


# --- whole suites, every role offline -------------------------------------------------------------
def test_meterdesk_compiles_and_activates_its_intents(tmp_path: Path) -> None:
    # 3 s idle, up to ~45 s on 2 busy shared cores: compile + 5 intents, the method on a spec of its own
    f = run_suite(METER / "spec.yaml", METER, METER / "mutations.yaml", tmp_path)
    assert f.vpr[0] < 0.2 and f.vpr[-1] >= 0.9 and f.hpr >= 0.9
    assert len(f.activated) >= 4, f.not_activated


def test_parceldesk_compiles_and_activates_five_of_seven_intents(tmp_path: Path) -> None:
    # 7 s idle, up to ~75 s on 2 busy shared cores: issue #28 done-when, on the case written before the change
    f = run_suite(PARCEL / "specs" / "parceldesk" / "v1" / "spec.yaml", PARCEL / "agent_artifacts" / "parceldesk",
                  PARCEL / "mutation_packs" / "parceldesk" / "mutations.yaml", tmp_path)
    assert (f.visible, f.hidden) == (43, 32)
    assert f.vpr[-1] >= 0.9 and f.hpr >= 0.9
    assert len(f.activated) >= 5, f.not_activated


def test_an_order_intent_puts_the_first_tool_before_the_second() -> None:
    from adat.contracts.tdad_roles import MutationSmithInput, ToolDescriptionView
    from adat_offline.tdad_compilers import mutationsmith, reordered_tools

    tools = {"ship_box": "Ship a box.", "check_badge": "Check a staff badge.", "respond": "Answer."}
    assert reordered_tools("Ship the box first and check the badge afterwards.", tools, list(tools)) == (
        "ship_box", "check_badge")
    assert reordered_tools("Call ship_box before check_badge.", tools, list(tools)) == ("ship_box", "check_badge")
    assert reordered_tools("Answer politely.", tools, list(tools)) is None
    prompt = ("- [S1] Check the badge. Call the tools in this order: check_badge.\n"
              "- [P1] Call check_badge before ship_box. Keep it short.\n")
    out = mutationsmith(MutationSmithInput(
        mutation_id="m", intent="Ship the box first and check the badge afterwards.", constraints=[],
        system_prompt=prompt, tool_descriptions=[ToolDescriptionView(name=k, description=v) for k, v in tools.items()],
        attempt=0))
    assert "Call the tools in this order: ship_box, check_badge." in out.system_prompt
    assert "check_badge before ship_box" not in out.system_prompt and "- [P1] Keep it short." in out.system_prompt
