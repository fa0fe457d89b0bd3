"""The AgentEval baseline: one boundary test per node and edge of the workflow graph.

Our re-implementation of AgentEval's boundary generation (Lin et al., 2026) as the AdaT2 paper
uses it (§4.2): the graph is mined from the same discovery traces (:mod:`.workflow_graph`), there
is no limit on the number of tests (one per node and edge), and the generator writes each test by
perturbing the user messages of a discovery conversation that reaches the target
(``catalogs/prompts/agenteval_perturb.yaml``). The graph states no expected behaviour, so the
generator has to supply it — the weakness the paper measures.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from adat.baselines.workflow_graph import START, Embed, WorkflowGraph, mine_workflow_graph
from adat.config import RunConfig
from adat.contracts.adat2_roles import PROMPT_AGENTEVAL, AgentEvalInput, AgentEvalOutput, WorkflowTargetView
from adat.llm.types import LLMError, TesterLLM
from adat.records import TestCase, Trace, Turn
from adat.stages.ids import stable_id
from adat.stages.provenance import call_role
from adat.stages.views import test_from_generated, turn_views

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GraphTarget:
    """A node or an edge the generator gets as its target, with the path that reaches it."""

    view: WorkflowTargetView
    path: list[Turn]


@dataclass
class AgentEvalResult:
    tests: list[TestCase]
    graph: WorkflowGraph
    skipped: dict[str, str] = field(default_factory=dict)  # target id -> why no test was written


def agenteval_test_id(run_id: str, target_id: str) -> str:
    """Id of the (at most one) AgentEval test of a graph target."""
    return stable_id("te", run_id, "agenteval", target_id)


def graph_targets(graph: WorkflowGraph, samples: int) -> list[GraphTarget]:
    """Every node, then every edge, as generator targets (the order the tests are written in)."""
    targets = [GraphTarget(WorkflowTargetView(target_id=node.node_id, kind="node", activity=node.samples(samples)),
                           node.path) for node in graph.nodes if node.path]
    for edge in graph.edges:
        if edge.path:
            source = [] if edge.source == START else graph.node(edge.source).samples(samples)
            view = WorkflowTargetView(target_id=edge.edge_id, kind="edge", from_activity=source,
                                      activity=graph.node(edge.target).samples(samples),
                                      edge_messages=edge.messages[:samples])
            targets.append(GraphTarget(view, edge.path))
    return targets


def generate_agenteval_tests(cfg: RunConfig, client: TesterLLM, traces: Sequence[Trace], run_id: str,
                             embed: Embed) -> AgentEvalResult:
    """Mine the graph of ``traces`` and ask the generator for one test per node and edge."""
    graph = mine_workflow_graph(traces, embed, cfg.baselines.agenteval_similarity)
    result = AgentEvalResult(tests=[], graph=graph)
    for target in graph_targets(graph, cfg.baselines.agenteval_samples):
        request = AgentEvalInput(target=target.view, path=turn_views(target.path),
                                 tester_facts=list(cfg.tester_facts), turn_limit=cfg.generation.turn_limit)
        try:
            answer, produced = call_role(client, "generator", PROMPT_AGENTEVAL, request, AgentEvalOutput)
        except LLMError as exc:
            log.warning("AgentEval test for %s failed: %s", target.view.target_id, exc)
            result.skipped[target.view.target_id] = f"generator error: {exc}"
            continue
        if answer.test is None:
            result.skipped[target.view.target_id] = answer.reason or "the generator wrote no test"
            continue
        generated = answer.test.model_copy(update={"step_hints": answer.test.step_hints[: cfg.generation.turn_limit]})
        result.tests.append(test_from_generated(
            generated, test_id=agenteval_test_id(run_id, target.view.target_id), run_id=run_id, kind="agenteval",
            turn_limit=cfg.generation.turn_limit, produced=produced,
            provenance=f"AgentEval {target.view.kind} {target.view.target_id}: {_describe(target.view)}",
        ))
    return result


def _describe(view: WorkflowTargetView) -> str:
    text = view.edge_messages[0] if view.kind == "edge" and view.edge_messages else (view.activity or [""])[0]
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "..."
