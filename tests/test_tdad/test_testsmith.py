"""TestSmith (offline/heuristic) on a spec written here and on the shipped ones."""

from __future__ import annotations

from pathlib import Path

from adat.config import RunConfig
from adat.llm.client import LLMClient
from adat.tdad.spec_loader import load_spec, parse_spec
from adat.tdad.testsmith import families_of, generate_tests, leaf_paths
from tests.support.tdad_spec import library_spec


def _client(tmp_path: Path) -> tuple[RunConfig, LLMClient]:
    cfg = RunConfig(data_dir=str(tmp_path))
    return cfg, LLMClient(cfg, "r1", cache_dir=tmp_path / "cache")


def test_tests_per_leaf_family_split_and_clauses(tmp_path: Path) -> None:
    cfg, client = _client(tmp_path)
    spec = parse_spec(library_spec())
    tests = generate_tests(client, spec, seed=3, run_id="r1")
    assert {t.leaf_id for t in tests if t.split == "visible"} == set(spec.leaves())  # every leaf covered
    for t in tests:
        assert t.split == ("visible" if t.family in ("MFT", "INV", "DIR") else "hidden")
        assert t.produced_by == "offline/heuristic" and t.prompt_id == "testsmith" and t.prompt_version
        assert t.clauses and all(a.clause for a in t.assertions) and not t.problems()
        known = {*(p.id for p in spec.policies), *(n.node_id for n in spec.decision_tree), "response_contract",
                 *(f"tools.{n}.retry_policy" for n in spec.tool_names())}
        assert set(t.clauses) <= known, set(t.clauses) - known
    families = {t.family for t in tests}
    assert families == {"MFT", "INV", "DIR", "paraphrase", "boundary_values", "tool_output_metamorphic"}
    # the gate policy and the overdue threshold show up as typed assertions / boundary fixtures
    assert any(a.kind == "auth_gate" and a.clause == "L2_MEMBER_FIRST" for t in tests for a in t.assertions)
    assert any(a.kind == "no_pii" and a.clause == "L1_PRIVATE" for t in tests for a in t.assertions)
    edge = next(t for t in tests if t.family == "boundary_values")
    loans = next(f for f in edge.fixtures if f.tool == "list_loans").output_json
    assert '"days_overdue": 31' in loans and '"max_overdue_days": 30' in loans
    hidden = [t for t in tests if t.split == "hidden"]
    assert hidden and all(t.derived_from for t in hidden)


def test_seeded_and_deterministic(tmp_path: Path) -> None:
    cfg, client = _client(tmp_path)
    spec = parse_spec(library_spec())
    a = generate_tests(client, spec, seed=1)
    b = generate_tests(client, spec, seed=1)
    c = generate_tests(client, spec, seed=2)
    assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
    assert {t.test_id for t in a} != {t.test_id for t in c}


def test_families_follow_the_specs_tests_section() -> None:
    raw = library_spec()
    raw["tests"] = {"visible": {"min_types": ["MFT"]}, "hidden": {"generators": [{"type": "paraphrase"}]}}
    assert families_of(parse_spec(raw)) == ["MFT", "paraphrase"]


def test_shipped_specs_every_leaf_gets_visible_tests(shared_dir: Path, tmp_path: Path) -> None:
    cfg, client = _client(tmp_path)
    for agent in ("supportops", "expenseguard"):
        spec = load_spec(shared_dir / "benchmarks" / "tdad" / "specs" / agent / "v1" / "spec.yaml")
        tests = generate_tests(client, spec, seed=0)
        visible = [t for t in tests if t.split == "visible"]
        assert visible and len(tests) - len(visible) > 0
        if agent == "supportops":
            assert {t.leaf_id for t in visible} == set(spec.leaves())
        assert len(leaf_paths(spec)) >= len(spec.leaves())
