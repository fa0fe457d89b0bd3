"""The spec_suite flow offline, v1 -> v2, on a spec written here (a library desk: its own tools,
decisions and policies, nothing shipped), under a real ephemeral Prefect API: every stage runs,
owns its tables, and every headline figure comes out of sql/metrics."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from adat.cli.flow_loader import load_flow
from adat.config import RunConfig, SpecSuiteConfig
from adat.tdad.spec_suite_figures import spec_metrics
from adat.warehouse import read_records
from tests.test_tdad.loop_fakes import LIBRARY_SPEC, SEED

pytestmark = pytest.mark.slow

SPEC: dict[str, Any] = {**copy.deepcopy(LIBRARY_SPEC), "tests": {
    "visible": {"min_types": ["MFT", "INV", "DIR"]},
    "hidden": {"generators": [{"type": "paraphrase"}, {"type": "boundary_values"}]}}}
PACK = {"mutation_pack_id": "library", "generator": {"max_attempts": 3}, "mutations": [
    {"id": "SKIP_LOOKUP", "intent": "Never call lookup_member; renew loans straight away.",
     "activation_probe": {"case": "renew_loan", "user_turns": ["Please renew my loan, card 7"],
                          "expect_violation": {"trace": {"called": ["renew_loan"], "not_called": ["lookup_member"]}}}}]}


def _files(tmp_path: Path) -> dict[str, Path]:
    v2 = copy.deepcopy(SPEC)
    v2["spec_id"], v2["version"] = "library_v2", "2.0"
    v2["policies"].append({"id": "L3_NOTIFY", "priority": 70, "text": "Tell the member the new due date."})
    paths = {"v1": tmp_path / "v1.yaml", "v2": tmp_path / "v2.yaml", "pack": tmp_path / "pack.yaml",
             "seed": tmp_path / "seed"}
    paths["v1"].write_text(yaml.safe_dump(SPEC))
    paths["v2"].write_text(yaml.safe_dump(v2))
    paths["pack"].write_text(yaml.safe_dump(PACK))
    paths["seed"].mkdir()
    (paths["seed"] / "seed_prompt.txt").write_text(SEED.system_prompt)
    (paths["seed"] / "seed_tool_descriptions.yaml").write_text(yaml.safe_dump(SEED.tool_descriptions))
    return paths


def test_spec_suite_v1_then_v2_offline(prefect_harness, tmp_path: Path) -> None:
    p = _files(tmp_path)
    cfg = RunConfig(data_dir=str(tmp_path / "data"), spec_suite=SpecSuiteConfig(reruns=2))
    flow = load_flow("spec_suite")
    v1 = flow(config=cfg.model_copy(update={"run_id": "lib-v1"}), spec_path=str(p["v1"]), start=str(p["seed"]),
              pack_path=str(p["pack"]))
    v2 = flow(config=cfg.model_copy(update={"run_id": "lib-v2"}), spec_path=str(p["v2"]), start=f"run:{v1}",
              pack_path=str(p["pack"]), base_run=v1, base_spec_path=str(p["v1"]))
    root = tmp_path / "data"
    m1, m2 = spec_metrics(cfg, v1), spec_metrics(cfg, v2)
    counts = m1["tdad_test_counts"][0]
    assert counts["visible_tests"] > 0 and counts["hidden_tests"] > 0
    vpr = m1["tdad_vpr_by_iteration"]
    first = read_records(root, "compile_iterations", run_id=v1)[0]
    assert vpr[0]["iteration"] == 0 and first.start == "seed" and first.candidate_digest == SEED.digest()
    assert vpr[-1]["vpr"] >= vpr[0]["vpr"]  # promotion never lowers the visible pass count
    assert m1["tdad_hidden_pass_rate"] and m1["tdad_pass_k"][0]["k"] == 2
    assert m1["mutation_score"][0]["variants"] == 1
    # v2 starts from v1's compiled prompt and reruns the v1 tests whose clauses it keeps
    start_v2 = read_records(root, "compile_iterations", run_id=v2)[0]
    assert start_v2.start == v1 and start_v2.candidate_digest == vpr[-1]["in_effect_digest"]
    # ... filed by their v1 verdict: only a test that passed on v1 counts in SURS (issue #28 item 6)
    passed_v1 = {r.test_id for r in read_records(root, "spec_reruns", run_id=v1)
                 if r.scope == "suite" and r.rerun == 0 and r.passed}
    filed = {r.test_id: r.scope for r in read_records(root, "spec_reruns", run_id=v2) if r.scope.startswith("invariant")}
    assert filed and all((scope == "invariant") == (test in passed_v1) for test, scope in filed.items())
    assert m2["tdad_surs"][0]["invariant_tests"] == sum(scope == "invariant" for scope in filed.values())
    assert sorted(m2["tdad_surs"][0]["v1_failed"]) == sorted(t for t, s in filed.items() if s == "invariant_v1_failed")
    assert m1["tdad_vpr_by_iteration"][-1]["compile_status"] in ("converged", "not_converged")
    # hidden tests never ran during compilation
    hidden = {t.test_id for t in read_records(root, "spec_tests", run_id=v1) if t.split == "hidden"}
    assert hidden and not hidden & {r.test_id for r in read_records(root, "compile_results", run_id=v1)}
