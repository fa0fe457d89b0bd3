"""AgentEval test generation: one generator call per node and edge, with the path that reaches it."""

from __future__ import annotations

from adat.baselines.agenteval import agenteval_test_id, generate_agenteval_tests
from adat.baselines.workflow_graph import mine_workflow_graph
from adat.llm.types import LLMRequest
from adat.records import Trace
from tests.test_baselines.conftest import keyword_embed
from tests.test_stages.conftest import RUN, Roles


def answer(request: LLMRequest) -> dict[str, object]:
    target = request.variables["target"]
    if target["target_id"] == "n03":
        return {"test": None, "reason": "nothing to perturb"}
    hints = [t["text"] for t in request.variables["path"] if t["role"] == "user"]
    return {"test": {"goal": f"probe {target['target_id']}", "step_hints": [*hints, "extra", "more", "again"],
                     "success_criteria": ["the agent refuses"], "failure_criteria": [],
                     "expected_side": "denied", "assumed_facts": []},
            "reason": "perturbed"}


def test_one_test_per_node_and_edge(roles: Roles, traces: list[Trace]) -> None:
    roles.cfg.baselines.agenteval_similarity = 0.9
    roles.cfg.generation.turn_limit = 3
    fake = roles.script("generator", answer)
    result = generate_agenteval_tests(roles.cfg, roles.client(), traces, RUN, keyword_embed)
    graph = mine_workflow_graph(traces, keyword_embed, 0.9)
    targets = [n.node_id for n in graph.nodes] + [e.edge_id for e in graph.edges]
    assert [r.variables["target"]["target_id"] for r in fake.requests] == targets
    assert result.skipped == {"n03": "nothing to perturb"}
    assert len(result.tests) == len(targets) - 1
    assert {t.kind for t in result.tests} == {"agenteval"}
    assert result.tests[0].test_id == agenteval_test_id(RUN, "n01")
    assert len({t.test_id for t in result.tests}) == len(result.tests)
    assert all(len(t.step_hints) <= 3 and t.turn_limit == 3 for t in result.tests)
    assert all(t.prompt_id == "agenteval_perturb" and t.provenance.startswith("AgentEval ") for t in result.tests)
    for request in fake.requests:  # the path ends in the target's reply; agent text is fenced
        assert request.variables["path"][-1]["role"] == "agent"
        assert '<data label="discovery conversation that reaches the target" untrusted="true">' \
            in request.messages[-1]["content"]


def test_a_generator_error_skips_only_that_target(roles: Roles, traces: list[Trace]) -> None:
    roles.cfg.baselines.agenteval_similarity = 0.9
    calls = {"n": 0}

    def flaky(request: LLMRequest) -> object:
        calls["n"] += 1
        return "not json" if request.variables["target"]["target_id"] == "n02" else answer(request)

    roles.script("generator", flaky)
    result = generate_agenteval_tests(roles.cfg, roles.client(), traces, RUN, keyword_embed)
    assert set(result.skipped) == {"n02", "n03"} and result.skipped["n02"].startswith("generator error")
    assert agenteval_test_id(RUN, "n01") in {t.test_id for t in result.tests}


def test_agenteval_samples_is_how_many_member_replies_of_a_node_the_generator_sees(
        roles: Roles, traces: list[Trace]) -> None:
    roles.cfg.baselines.agenteval_similarity = 0.9
    seen: dict[int, int] = {}
    for samples in (1, 3):
        roles.cfg.baselines.agenteval_samples = samples
        fake = roles.script("generator", answer)
        generate_agenteval_tests(roles.cfg, roles.client(), traces, RUN, keyword_embed)
        activity = [len(r.variables["target"]["activity"]) for r in fake.requests]
        assert max(activity) <= samples
        seen[samples] = max(activity)
    assert seen[1] == 1 and seen[3] > 1  # the graph has a node with several members: the setting bites
