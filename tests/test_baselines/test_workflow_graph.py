"""Mining AgentEval's workflow graph: clusters of replies as nodes, moving user messages as edges."""

from __future__ import annotations

import numpy as np

from adat.baselines.agenteval import graph_targets
from adat.baselines.workflow_graph import START, cluster_labels, mine_workflow_graph
from adat.records import Trace
from tests.test_baselines.conftest import keyword_embed


def test_cluster_labels_follow_first_appearance_and_the_threshold() -> None:
    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    near_a = np.array([0.95, 0.05])
    vectors = np.stack([b, a, near_a, b, a])
    assert cluster_labels(vectors, 0.9) == [0, 1, 1, 0, 1]
    assert cluster_labels(vectors, 0.999999) == [0, 1, 2, 0, 1]  # near_a splits off, exact copies stay
    assert cluster_labels(vectors, 0.01) == [0, 0, 0, 0, 0]
    assert cluster_labels(vectors[:1], 0.5) == [0]
    assert cluster_labels(np.zeros((0, 2)), 0.5) == []


def test_nodes_are_activities_and_edges_the_user_messages_between_them(traces: list[Trace]) -> None:
    graph = mine_workflow_graph(traces, keyword_embed, similarity=0.9)
    texts = {n.node_id: n.samples(5) for n in graph.nodes}
    assert texts["n01"] == ["Please verify your identity with your email.",
                            "Please verify your identity with your email first.",
                            "I could not verify that email; please verify again."]
    assert texts["n02"] == ["Order #W1000001 is pending. Do you confirm the cancellation?"]
    assert [n.node_id for n in graph.nodes] == ["n01", "n02", "n03", "n04", "n05"]
    edges = {e.edge_id: e for e in graph.edges}
    assert set(edges) == {f"{START}>n01", "n01>n02", "n02>n03", "n01>n04", "n01>n05"}
    assert edges[f"{START}>n01"].messages == ["Cancel order #W1000001", "I want to cancel #W1000002", "hello"]
    assert edges["n01>n05"].messages == ["ann@example.com"]  # entered from the repeated identity question
    assert all(e.source != e.target for e in graph.edges)  # 'verify again' keeps the activity: no self-loop


def test_paths_are_the_shortest_conversation_reaching_each_target(traces: list[Trace]) -> None:
    graph = mine_workflow_graph(traces, keyword_embed, similarity=0.9)
    identity = graph.node("n01")
    assert [t.text for t in identity.path] == ["Cancel order #W1000001", "Please verify your identity with your email."]
    refusal = graph.node("n04")
    assert refusal.path[-1].text.startswith("Sorry, I cannot cancel")
    for edge in graph.edges:
        assert edge.path[-1].role == "agent"
        assert edge.path[-2].text in edge.messages  # the message that moves along the edge
        assert edge.path[-1].text in {r.text for r in graph.node(edge.target).replies}  # it ends in the target
    edge = next(e for e in graph.edges if e.edge_id == "n01>n05")
    assert sum(t.role == "user" for t in edge.path) == 3


def test_targets_are_every_node_then_every_edge(traces: list[Trace]) -> None:
    graph = mine_workflow_graph(traces, keyword_embed, similarity=0.9)
    targets = graph_targets(graph, samples=2)
    assert [t.view.target_id for t in targets][:5] == ["n01", "n02", "n03", "n04", "n05"]
    assert len(targets) == len(graph.nodes) + len(graph.edges)
    start = next(t for t in targets if t.view.target_id == f"{START}>n01")
    assert start.view.kind == "edge" and start.view.from_activity == []
    assert len(start.view.edge_messages) == 2 and len(start.view.activity) == 2
    inner = next(t for t in targets if t.view.target_id == "n01>n02")
    assert inner.view.from_activity[0].startswith("Please verify")


def test_mining_is_deterministic_and_handles_no_replies(traces: list[Trace]) -> None:
    first = mine_workflow_graph(traces, keyword_embed, similarity=0.9)
    again = mine_workflow_graph(traces, keyword_embed, similarity=0.9)
    assert [(e.edge_id, e.messages) for e in first.edges] == [(e.edge_id, e.messages) for e in again.edges]
    empty = mine_workflow_graph([Trace(trace_id="t", run_id="r", kind="discovery")], keyword_embed, 0.9)
    assert empty.nodes == [] and empty.edges == []
